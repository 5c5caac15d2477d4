package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// valuesTable is the chart README's table of values, made from values.yaml: one row per leaf (leaves), its
// default as JSON and its description, the comment above its key or, for a key with none, above the
// nearest key that holds it.
func valuesTable(valuesText string) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(valuesText), &doc); err != nil {
		return "", err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return "", fmt.Errorf("values.yaml is not a mapping")
	}
	var b strings.Builder
	b.WriteString("| Key | Default | Description |\n|---|---|---|\n")
	var walk func(prefix string, m *yaml.Node, inherited string) error
	walk = func(prefix string, m *yaml.Node, inherited string) error {
		for i := 0; i+1 < len(m.Content); i += 2 {
			key, val := m.Content[i], m.Content[i+1]
			desc := comment(key.HeadComment)
			if desc == "" {
				desc = inherited
			}
			path := prefix + key.Value
			if val.Kind == yaml.MappingNode && len(val.Content) > 0 && !isKubernetesType(path) {
				if err := walk(path+".", val, desc); err != nil {
					return err
				}
				continue
			}
			var v any
			if err := val.Decode(&v); err != nil {
				return err
			}
			def, err := json.Marshal(v)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", path, strings.ReplaceAll(string(def), "|", `\|`), strings.ReplaceAll(desc, "|", `\|`))
		}
		return nil
	}
	if err := walk("", doc.Content[0], ""); err != nil {
		return "", err
	}
	return b.String(), nil
}

// isKubernetesType tells the values whose default is a Kubernetes object (one row for the whole of it).
func isKubernetesType(path string) bool { return path == "resources" || path == "affinity" }

// comment joins the lines of a YAML comment without their "#", and drops the file's header (the part
// before a blank line).
func comment(c string) string {
	if i := strings.LastIndex(c, "\n\n"); i >= 0 {
		c = c[i+2:]
	}
	var lines []string
	for l := range strings.SplitSeq(c, "\n") {
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#")))
	}
	return strings.TrimSpace(strings.Join(lines, " "))
}
