package tributary_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
)

func TestPageTotal(t *testing.T) {
	for _, c := range []struct {
		meta map[string]any
		want int64
	}{
		{map[string]any{"count": 250, "next_page": "x"}, 250},                                   // Zendesk
		{map[string]any{"total_items": float64(25)}, 25},                                        // Mailchimp
		{map[string]any{"totalSize": int64(1000), "done": false}, 1000},                         // Salesforce
		{map[string]any{"pagination": map[string]any{"totalRecords": 250, "cursor": "c"}}, 250}, // Gong
		{map[string]any{"next_cursor": "10100000011"}, 0},                                       // HubSpot list
		{map[string]any{"after_cursor": nil}, 0},                                                // Zendesk cursor paging
		{map[string]any{"count": 2.5}, 0},                                                       // not a count
		{nil, 0},
	} {
		got, ok := tributary.PageTotal(c.meta)
		if got != c.want || ok != (c.want > 0) {
			t.Errorf("PageTotal(%v) = %d, %v; want %d", c.meta, got, ok, c.want)
		}
	}
}
