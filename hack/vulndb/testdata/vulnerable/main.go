// Command vulnerable calls yaml.Unmarshal of gopkg.in/yaml.v2 v2.2.2, which GO-2020-0036 (fixed in v2.2.8)
// and other entries of the Go vulnerability database affect: make govulncheck scans it first and fails
// unless govulncheck reports it, so a database or scanner that finds nothing cannot pass for a clean scan.
package main

import (
	"fmt"
	"os"

	"gopkg.in/yaml.v2"
)

func main() {
	var v map[string]any
	if err := yaml.Unmarshal([]byte(os.Args[1]), &v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(v)
}
