// Command etcd is etcd's server at the version kubeadm v1.37 deploys (3.7.0), built from the Go module proxy
// for the kind node image. envtest uses hack/tools/etcd, which follows its own version.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
