package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

func (a *app) kindsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "kinds",
		Short: "List the connector types",
		Long:  "kinds lists the connector types this build can open, with the vendor API each one reads and its number of entities.",
		Example: `  tributary kinds
  tributary kinds --json | jq -r '.[].connector_type'`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			type kindOut struct {
				ConnectorType string   `json:"connector_type"`
				Vendor        string   `json:"vendor"`
				Entities      []string `json:"entities"`
			}
			out := []kindOut{}
			infos := kindInfos()
			for _, t := range kinds.Types() {
				es, err := kinds.Catalogue(t)
				if err != nil {
					return err
				}
				k := kindOut{ConnectorType: t, Vendor: infos[t].vendor, Entities: []string{}}
				for _, e := range es {
					k.Entities = append(k.Entities, e.Name)
				}
				out = append(out, k)
			}
			if asJSON {
				return writeJSON(a.stdout, out)
			}
			tw := newTable(a.stdout)
			fmt.Fprintln(tw, "TYPE\tVENDOR\tENTITIES")
			for _, k := range out {
				fmt.Fprintf(tw, "%s\t%s\t%d\n", k.ConnectorType, k.Vendor, len(k.Entities))
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func (a *app) describeCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "describe <type> [entity]",
		Short: "Show a kind's catalogue: credentials, entities, actions, parameters, searchable fields",
		Long: `describe shows the catalogue of a connector type. Without an entity: the
fields of its credentials object with the environment variable that holds
each one, and its entities with their actions. With an entity: the parameters
of each action (type, whether required, allowed values, default), the fields
the search action filters and sorts on, and, where the entity's list needs
params that 'tributary sync' supplies itself, what its copy covers (copy:).`,
		Example: `  tributary describe zendesk-support
  tributary describe zendesk-support tickets
  tributary describe gong calls_extensive --json | jq '.entities[0].actions.list'`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usageErr(cmd, "describe needs a connector type, one of %s: tributary describe <type> [entity]", strings.Join(kinds.Types(), ", "))
			case len(args) > 2:
				return usageErr(cmd, "describe takes a connector type and at most one entity (tributary describe <type> [entity]), got %d arguments", len(args))
			}
			return nil
		},
		ValidArgsFunction: completeTypeEntity(nil),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			kind := args[0]
			es, err := kinds.Catalogue(kind)
			if err != nil {
				return err
			}
			if len(args) == 2 {
				e, ok := tributary.FindEntity(es, args[1])
				if !ok {
					_, err := tributary.Validate(kind, es, args[1], "", nil) // no action: the entity is unknown
					return err
				}
				es = []tributary.Entity{e}
			}
			d := describeKind(kind, es, len(args) == 2)
			if asJSON {
				return writeJSON(a.stdout, d)
			}
			if len(args) == 2 {
				return printEntity(a.stdout, kind, d.Entities[0])
			}
			return printKind(a.stdout, d)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of tables")
	return cmd
}

// The JSON form of describe.
type (
	kindDesc struct {
		ConnectorType string       `json:"connector_type"`
		Vendor        string       `json:"vendor,omitempty"`
		Credentials   *credDesc    `json:"credentials,omitempty"`
		Entities      []entityDesc `json:"entities"`
	}
	credDesc struct {
		Methods string          `json:"methods"`
		Fields  []credFieldDesc `json:"fields"`
	}
	credFieldDesc struct {
		Name   string `json:"name"`
		Type   string `json:"type"`
		Secret bool   `json:"secret"`
		Env    string `json:"env"`
	}
	entityDesc struct {
		Name       string                 `json:"name"`
		Doc        string                 `json:"doc,omitempty"`
		Actions    map[string][]paramDesc `json:"actions"`
		Order      []string               `json:"-"`
		Searchable []fieldDesc            `json:"searchable,omitempty"`
		// Copy is the Doc of the entity's copy scope: what a sync copies
		// when no list params are given.
		Copy string `json:"copy,omitempty"`
	}
	paramDesc struct {
		Name     string      `json:"name"`
		Type     string      `json:"type"`
		Required bool        `json:"required"`
		Enum     []string    `json:"enum,omitempty"`
		Default  any         `json:"default,omitempty"`
		Min      *float64    `json:"min,omitempty"`
		Max      *float64    `json:"max,omitempty"`
		Items    *paramDesc  `json:"items,omitempty"`
		Fields   []paramDesc `json:"fields,omitempty"`
		Doc      string      `json:"doc,omitempty"`
	}
	fieldDesc struct {
		Name string `json:"name"`
		Type string `json:"type"`
		Doc  string `json:"doc,omitempty"`
	}
)

func describeKind(kind string, es []tributary.Entity, oneEntity bool) kindDesc {
	info := kindInfos()[kind]
	d := kindDesc{ConnectorType: kind, Vendor: info.vendor, Entities: []entityDesc{}}
	if !oneEntity {
		c := &credDesc{Methods: info.methods, Fields: []credFieldDesc{}}
		for _, f := range info.fields {
			t := "string"
			if f.bool {
				t = "boolean"
			}
			c.Fields = append(c.Fields, credFieldDesc{Name: f.name, Type: t, Secret: f.secret, Env: envName(kind, f.name)})
		}
		d.Credentials = c
	}
	for _, e := range es {
		ed := entityDesc{Name: e.Name, Doc: e.Doc, Actions: map[string][]paramDesc{}}
		for _, act := range e.Actions {
			ps := []paramDesc{}
			for _, p := range e.Params[act] {
				ps = append(ps, describeParam(p))
			}
			ed.Actions[string(act)] = ps
			ed.Order = append(ed.Order, string(act))
		}
		for _, f := range e.Searchable {
			ed.Searchable = append(ed.Searchable, fieldDesc{Name: f.Name, Type: string(f.Type), Doc: f.Doc})
		}
		if e.Scope != nil {
			ed.Copy = e.Scope.Doc
		}
		d.Entities = append(d.Entities, ed)
	}
	return d
}

func describeParam(p tributary.Param) paramDesc {
	d := paramDesc{Name: p.Name, Type: string(p.Type), Required: p.Required, Enum: p.Enum, Default: p.Default, Min: p.Min, Max: p.Max, Doc: p.Doc}
	if p.Items != nil {
		it := describeParam(*p.Items)
		d.Items = &it
	}
	for _, f := range p.Fields {
		d.Fields = append(d.Fields, describeParam(f))
	}
	return d
}

func printKind(w io.Writer, d kindDesc) error {
	tw := newTable(w)
	fmt.Fprintf(tw, "%s (%s)\n\n", d.ConnectorType, d.Vendor)
	fmt.Fprintf(tw, "Credentials: %s.\n", d.Credentials.Methods)
	fmt.Fprintln(tw, "Give them with --credentials file.json (a JSON object of these fields) or in the environment:")
	fmt.Fprintln(tw, "  FIELD\tTYPE\tSECRET\tENVIRONMENT VARIABLE")
	for _, f := range d.Credentials.Fields {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Name, f.Type, yesNo(f.Secret), f.Env)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "Entities ('tributary describe "+d.ConnectorType+" <entity>' for parameters):")
	fmt.Fprintln(tw, "  ENTITY\tACTIONS\tSEARCHABLE FIELDS\tDESCRIPTION")
	for _, e := range d.Entities {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", e.Name, strings.Join(e.Order, ", "), len(e.Searchable), firstSentence(e.Doc))
	}
	return tw.Flush()
}

func printEntity(w io.Writer, kind string, e entityDesc) error {
	tw := newTable(w)
	fmt.Fprintf(tw, "%s %s", kind, e.Name)
	if e.Doc != "" {
		fmt.Fprintf(tw, ": %s", e.Doc)
	}
	fmt.Fprintf(tw, "\n")
	if e.Copy != "" {
		fmt.Fprintf(tw, "copy: %s\n", e.Copy)
	}
	for _, act := range e.Order {
		fmt.Fprintf(tw, "\n%s\n", act)
		ps := e.Actions[act]
		if len(ps) == 0 {
			fmt.Fprintln(tw, "  (no parameters)")
			continue
		}
		fmt.Fprintln(tw, "  PARAMETER\tTYPE\tREQUIRED\tALLOWED\tDEFAULT\tDESCRIPTION")
		var rows func(prefix string, ps []paramDesc)
		rows = func(prefix string, ps []paramDesc) {
			for _, p := range ps {
				fmt.Fprintf(tw, "  %s%s\t%s\t%s\t%s\t%s\t%s\n", prefix, p.Name, paramType(p), yesNo(p.Required), allowed(p), defaultOf(p.Default), firstSentence(p.Doc))
				rows(prefix+p.Name+".", p.Fields)
			}
		}
		rows("", ps)
	}
	if len(e.Searchable) > 0 {
		fields := append([]fieldDesc(nil), e.Searchable...)
		sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
		fmt.Fprintln(tw, "\nsearchable fields (search --query)")
		fmt.Fprintln(tw, "  FIELD\tTYPE\tDESCRIPTION")
		for _, f := range fields {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Name, f.Type, firstSentence(f.Doc))
		}
	}
	return tw.Flush()
}

// table aligns columns separated by tabs, and drops the padding at the end
// of lines whose last cells are empty.
type table struct {
	*tabwriter.Writer
	buf bytes.Buffer
	out io.Writer
}

func newTable(w io.Writer) *table {
	t := &table{out: w}
	t.Writer = tabwriter.NewWriter(&t.buf, 0, 4, 2, ' ', 0)
	return t
}

// Flush writes the table.
func (t *table) Flush() error {
	if err := t.Writer.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(t.buf.String(), "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = strings.TrimRight(l, " \n") + "\n"
		}
	}
	_, err := io.WriteString(t.out, strings.Join(lines, ""))
	return err
}

func paramType(p paramDesc) string {
	if p.Items != nil {
		return "array of " + p.Items.Type
	}
	return p.Type
}

func allowed(p paramDesc) string {
	enum := p.Enum
	if len(enum) == 0 && p.Items != nil {
		enum = p.Items.Enum
	}
	switch {
	case len(enum) > 0:
		return strings.Join(enum, "|")
	case p.Min != nil && p.Max != nil:
		return num(*p.Min) + ".." + num(*p.Max)
	case p.Min != nil:
		return ">= " + num(*p.Min)
	case p.Max != nil:
		return "<= " + num(*p.Max)
	}
	return ""
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func defaultOf(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// firstSentence shortens a doc string for a table cell.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}
