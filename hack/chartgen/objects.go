package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// object is one Kubernetes manifest, decoded as YAML maps (ints stay ints, unlike a JSON round trip).
type object map[string]any

func (o object) kind() string { return str(o, "kind") }
func (o object) name() string { return str(o.metadata(), "name") }

func (o object) namespace() string { return str(o.metadata(), "namespace") }

// key identifies an object in a build: kind/namespace/name.
func (o object) key() string { return o.kind() + "/" + o.namespace() + "/" + o.name() }

func (o object) metadata() map[string]any {
	m, _ := o["metadata"].(map[string]any)
	return m
}

// readObjects decodes a multi-document YAML file; empty documents are skipped.
func readObjects(path string) ([]object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeObjects(data)
}

func decodeObjects(data []byte) ([]object, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var objs []object
	for {
		// Decoded as a plain map: into an object, the YAML decoder would make every nested map an object too.
		var o map[string]any
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decoding manifests: %w", err)
		}
		if len(o) > 0 {
			objs = append(objs, object(o))
		}
	}
}

// encode writes v as YAML with a two-space indent.
func encode(v any) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// str is m[k] as a string, "" when absent or not a string.
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// path walks nested maps; nil when a step is missing.
func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func mapAt(v any, keys ...string) map[string]any {
	m, _ := path(v, keys...).(map[string]any)
	return m
}

func listAt(v any, keys ...string) []any {
	l, _ := path(v, keys...).([]any)
	return l
}

// flagName is the name part of a command-line argument: "--a=b" -> "--a".
func flagName(arg string) string {
	name, _, _ := strings.Cut(arg, "=")
	return name
}

// flagValue is the value of the first argument named name in args, and whether there is one.
func flagValue(args []any, name string) (string, bool) {
	for _, a := range args {
		s, _ := a.(string)
		if flagName(s) == name {
			_, v, found := strings.Cut(s, "=")
			if !found {
				v = "true"
			}
			return v, true
		}
	}
	return "", false
}

// replaceStrings replaces old with repl in every string of v (maps and lists are changed in place).
func replaceStrings(v any, old, repl string) {
	mapStrings(v, func(s string) string { return strings.ReplaceAll(s, old, repl) })
}

// mapStrings replaces every string of v by f of it (maps and lists are changed in place).
func mapStrings(v any, f func(string) string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = mapStrings(e, f)
		}
	case []any:
		for i, e := range t {
			t[i] = mapStrings(e, f)
		}
	case string:
		return f(t)
	}
	return v
}
