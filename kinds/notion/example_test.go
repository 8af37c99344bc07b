package notion_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/notion"
	"github.com/tributary-dev/tributary/kinds/notion/notiontest"
)

// Typed handles decode records into this package's structs: pages found
// by their title, then a page's content, nested blocks included, each
// naming its parent.
func Example() {
	srv := notiontest.New(notiontest.WithPages(12), notiontest.WithDataSources(0))
	defer srv.Close()
	c, err := notion.New(notion.Credentials{Token: notiontest.DefaultToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for p, err := range c.Pages().All(ctx, notion.SearchParams{Query: "page 1"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.ID, p.Parent.Type)
	}
	for b, err := range c.Blocks().All(ctx, notion.ChildParams{BlockID: notiontest.PageID(1)}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Type, b.Parent.Type, b.HasChildren)
	}
	// Output:
	// 0f3b09a0-0000-4000-8000-00000000000b workspace
	// 0f3b09a0-0000-4000-8000-00000000000a workspace
	// 0f3b09a0-0000-4000-8000-000000000001 workspace
	// heading_2 page_id false
	// paragraph page_id false
	// toggle page_id true
	// toggle block_id true
	// paragraph block_id false
}
