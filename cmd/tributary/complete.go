package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

// completeTypeEntity completes <type>, then <entity> (those keep allows, or
// all), then for exec <action>, from the catalogue. The 'completion'
// command that cobra adds prints the scripts for bash, zsh, fish and
// PowerShell.
func completeTypeEntity(keep func(tributary.Entity) bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const noFiles = cobra.ShellCompDirectiveNoFileComp
		if len(args) == 0 {
			return kinds.Types(), noFiles
		}
		es, err := kinds.Catalogue(args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		switch {
		case len(args) == 1 && cmd.Name() != "create-connector" && cmd.Name() != "connect":
			var out []cobra.Completion
			for _, e := range es {
				if keep == nil || keep(e) {
					out = append(out, cobra.CompletionWithDesc(e.Name, firstSentence(e.Doc)))
				}
			}
			return out, noFiles
		case len(args) == 2 && cmd.Name() == "exec":
			e, ok := tributary.FindEntity(es, args[1])
			if !ok {
				return nil, cobra.ShellCompDirectiveError
			}
			var out []cobra.Completion
			for _, a := range e.Actions {
				out = append(out, string(a))
			}
			return out, noFiles
		}
		return nil, noFiles
	}
}

// completeParam completes -p with the parameter names of the operation the
// arguments name, followed by "=".
func completeParam(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) < 2 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	es, err := kinds.Catalogue(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	e, ok := tributary.FindEntity(es, args[1])
	if !ok {
		return nil, cobra.ShellCompDirectiveError
	}
	action := tributary.ActionDownload
	switch cmd.Name() {
	case "exec":
		if len(args) < 3 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		action = tributary.Action(args[2])
	case "search":
		action = tributary.ActionList
	}
	var out []cobra.Completion
	var walk func(prefix string, ps []tributary.Param)
	walk = func(prefix string, ps []tributary.Param) {
		for _, p := range ps {
			name := prefix + p.Name
			if len(p.Fields) > 0 {
				walk(name+".", p.Fields)
				continue
			}
			if strings.HasPrefix(name, toComplete) {
				out = append(out, cobra.CompletionWithDesc(name+"=", string(p.Type)+" "+firstSentence(p.Doc)))
			}
		}
	}
	walk("", e.Params[action])
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}
