package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// leaf is one value of values.yaml: its dotted path and its default.
type leaf struct {
	path string
	def  any
}

// leaves lists the values of vals, depth first in sorted order: a scalar, a list, or an empty map is a leaf;
// a map with keys is walked into.
func leaves(prefix string, vals map[string]any) []leaf {
	var out []leaf
	for _, k := range sortedKeys(vals) {
		p := prefix + k
		if m, ok := vals[k].(map[string]any); ok && len(m) > 0 {
			out = append(out, leaves(p+".", m)...)
			continue
		}
		out = append(out, leaf{path: p, def: vals[k]})
	}
	return out
}

// mutations are the changed values of the leaves whose default the generic rule (mutate) cannot change
// into something the schema admits and the templates use.
var mutations = map[string]any{
	"image.pullPolicy":                 "Always",
	"fullnameOverride":                 otherValue,
	"certManager.issuerRef":            map[string]any{"name": "corp-ca", "kind": "ClusterIssuer"},
	"metrics.serviceMonitor.interval":  "45s",
	"metrics.serviceMonitor.tlsConfig": map[string]any{"serverName": "metrics.example.com"},
	"imagePullSecrets":                 []any{map[string]any{"name": "regcred"}},
	"tolerations":                      []any{map[string]any{"operator": "Exists"}},
	"topologySpreadConstraints":        []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}},
	"watchNamespaces":                  []any{"team-x"},
	"extraArgs":                        []any{"--zap-log-level=debug"},
}

// otherValue is the changed value of an empty string.
const otherValue = "other"

// mutate returns a value of l other than its default: from mutations, else a bool negated, a number plus
// one, a string changed ("other" for an empty one), an empty map given a key, a list emptied or given an
// item.
func mutate(l leaf) any {
	if m, ok := mutations[l.path]; ok {
		return m
	}
	switch v := l.def.(type) {
	case bool:
		return !v
	case int:
		return v + 1
	case float64:
		return v + 1
	case string:
		if v == "" {
			return otherValue
		}
		return v + "-x"
	case map[string]any:
		return map[string]any{"example.com/key": "value"}
	case []any:
		if len(v) > 0 {
			return []any{}
		}
		return []any{"example"}
	}
	return nil
}

// renderer renders the chart with the values file base ("" for the defaults) and one value set to a JSON
// value (path "" for none).
type renderer func(base, path string, value any) (string, error)

// deadKeys returns the paths of the leaves of vals whose change leaves the rendering as it is under each of
// bases: values no template reads, or reads only where nothing they change shows.
func deadKeys(vals map[string]any, bases []string, render renderer) ([]string, error) {
	want := map[string]string{}
	for _, b := range bases {
		out, err := render(b, "", nil)
		if err != nil {
			return nil, fmt.Errorf("rendering with %q: %w", b, err)
		}
		want[b] = out
	}
	var dead []string
	for _, l := range leaves("", vals) {
		live := false
		for _, b := range bases {
			out, err := render(b, l.path, mutate(l))
			if err != nil {
				return nil, fmt.Errorf("rendering with %q and %s changed: %w", b, l.path, err)
			}
			if out != want[b] {
				live = true
				break
			}
		}
		if !live {
			dead = append(dead, l.path)
		}
	}
	return dead, nil
}

// checkEveryKey runs deadKeys over the chart in dir with helm, with its defaults and with
// ci/all-options-values.yaml as the two bases, and fails naming the dead keys.
func checkEveryKey(helm, dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		return err
	}
	var vals map[string]any
	if err := yaml.Unmarshal(data, &vals); err != nil {
		return err
	}
	render := func(base, path string, value any) (string, error) {
		args := []string{"template", "cronjob-operator", dir, "--namespace", "cronjob-operator-system"}
		if base != "" {
			args = append(args, "-f", base)
		}
		if path != "" {
			enc, err := json.Marshal(value)
			if err != nil {
				return "", err
			}
			args = append(args, "--set-json", path+"="+string(enc))
		}
		out, err := exec.Command(helm, args...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	bases := []string{"", filepath.Join(dir, "ci", "all-options-values.yaml")}
	dead, err := deadKeys(vals, bases, render)
	if err != nil {
		return err
	}
	if len(dead) > 0 {
		return fmt.Errorf("values that change nothing the chart renders, with its defaults or with every option on: %s", strings.Join(dead, ", "))
	}
	fmt.Printf("chartgen: each of the %d values of %s changes the rendering\n", len(leaves("", vals)), filepath.Join(dir, "values.yaml"))
	return nil
}
