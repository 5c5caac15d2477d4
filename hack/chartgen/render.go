package main

import (
	"fmt"
	"strings"
)

// A template is built in two steps: the object is edited so that each place Helm templating goes holds a
// token (a string, or a map key that sorts last), the object is encoded as YAML, and each line that holds a
// token is then replaced by the template text the token stands for, at that line's indentation.
//
// Three kinds of token:
//   - inline: a string that stands for template text inside a line (a value, part of a string);
//   - item: a list item kept only when a condition holds (`{{- if COND }}` before it, `{{- end }}` after);
//   - block: lines that take the place of a list item, of a map key (token as key), or of a map value
//     (token as value: the key is kept, the lines follow it one level deeper).
type template struct {
	n       int
	inlines map[string]string
	items   map[string]gatedItem
	blocks  map[string]func(indent int) []string
}

type gatedItem struct {
	cond string
	item any
}

func newTemplate() *template {
	return &template{inlines: map[string]string{}, items: map[string]gatedItem{}, blocks: map[string]func(int) []string{}}
}

// token returns a fresh token; it starts with "zz" so that, as a map key, it sorts after the real keys.
func (t *template) token() string {
	t.n++
	return fmt.Sprintf("zzchartgen%dzz", t.n)
}

// inline returns a token that is replaced by text wherever it appears.
func (t *template) inline(text string) string {
	tok := t.token()
	t.inlines[tok] = text
	return tok
}

// item returns a token that, as a list item, stands for item kept only when cond (a template pipeline) holds.
func (t *template) item(cond string, item any) string {
	tok := t.token()
	t.items[tok] = gatedItem{cond: cond, item: item}
	return tok
}

// block returns a token that is replaced by the lines lines(indent) returns, indent being the column of
// the list item or map key the token is in place of (for a map value: of the key, plus two).
func (t *template) block(lines func(indent int) []string) string {
	tok := t.token()
	t.blocks[tok] = lines
	return tok
}

// gatedLines is a block of YAML lines kept only when cond holds.
func gatedLines(cond string, lines ...string) func(int) []string {
	return func(indent int) []string {
		pad := strings.Repeat(" ", indent)
		out := []string{pad + "{{- if " + cond + " }}"}
		for _, l := range lines {
			out = append(out, pad+l)
		}
		return append(out, pad+"{{- end }}")
	}
}

// render encodes obj and replaces the tokens in it.
func (t *template) render(obj any) (string, error) {
	text, err := encode(obj)
	if err != nil {
		return "", err
	}
	var out []string
	for line := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
		lines, err := t.expand(line)
		if err != nil {
			return "", err
		}
		out = append(out, lines...)
	}
	text = strings.Join(mergeGates(out), "\n") + "\n"
	for tok, repl := range t.inlines {
		text = strings.ReplaceAll(text, tok, repl)
	}
	if strings.Contains(strings.NewReplacer(nsToken, "", prefixToken, "").Replace(text), "zzchartgen") {
		return "", fmt.Errorf("a token was left in the output (a token in an unexpected place):\n%s", text)
	}
	return text, nil
}

// expand replaces one encoded line holding an item or block token by its lines.
func (t *template) expand(line string) ([]string, error) {
	trimmed := strings.TrimLeft(line, " ")
	indent := len(line) - len(trimmed)
	pad := strings.Repeat(" ", indent)
	if tok, ok := strings.CutPrefix(trimmed, "- "); ok {
		if it, ok := t.items[tok]; ok {
			enc, err := encode(it.item)
			if err != nil {
				return nil, err
			}
			out := []string{pad + "{{- if " + it.cond + " }}"}
			for i, l := range strings.Split(strings.TrimSuffix(enc, "\n"), "\n") {
				lead := "  "
				if i == 0 {
					lead = "- "
				}
				out = append(out, pad+lead+l)
			}
			return append(out, pad+"{{- end }}"), nil
		}
		if b, ok := t.blocks[tok]; ok {
			return b(indent), nil
		}
	}
	if key, val, ok := strings.Cut(trimmed, ": "); ok {
		if b, ok := t.blocks[key]; ok && (val == `""` || val == "''") {
			return b(indent), nil
		}
		if b, ok := t.blocks[val]; ok {
			return append([]string{pad + key + ":"}, b(indent+2)...), nil
		}
	}
	return []string{line}, nil
}

// mergeGates joins the gates of adjacent items under one condition: an `{{- end }}` followed, at the same
// indentation, by an `{{- if C }}` of the same C as the one it closes is dropped with it.
func mergeGates(lines []string) []string {
	var out []string
	open := map[string]string{} // indentation -> condition of the last if opened there
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " ")
		pad := lines[i][:len(lines[i])-len(trimmed)]
		if cond, ok := strings.CutPrefix(trimmed, "{{- if "); ok {
			open[pad] = cond
		}
		if trimmed == "{{- end }}" && i+1 < len(lines) && lines[i+1] == pad+"{{- if "+open[pad] && open[pad] != "" {
			i++ // drop this end and the next if
			continue
		}
		out = append(out, lines[i])
	}
	return out
}
