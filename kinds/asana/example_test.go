package asana_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/asana"
	"github.com/tributary-dev/tributary/kinds/asana/asanatest"
)

// Typed handles decode records into this package's structs: the projects
// the token can see, with their team, then one project's tasks, each
// with its section and assignee.
func Example() {
	srv := asanatest.New(asanatest.WithProjects(2), asanatest.WithTasks(6))
	defer srv.Close()
	c, err := asana.New(asana.Credentials{Token: asanatest.DefaultToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for p, err := range c.Projects().All(ctx, asana.WorkspaceParams{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.GID, p.Name, p.Team.Name)
	}
	for t, err := range c.Tasks().All(ctx, asana.TaskParams{Project: asanatest.GID("project", 0)}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s [%s] %s\n", t.Name, t.Memberships[0].Section.Name, t.Assignee.Name)
	}
	// Output:
	// 1204000000000001 Project 1 Engineering
	// 1204000000000002 Project 2 Marketing
	// Draft launch plan [To do] Grace
	// Ship launch plan [Doing] Edsger
	// Fix launch plan [Done] Ken
}
