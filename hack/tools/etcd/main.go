// Command etcd is etcd's server, built from the Go module proxy so that envtest needs no download site.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
