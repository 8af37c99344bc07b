package mailchimp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
)

func entities(t *testing.T) map[string]tributary.Entity {
	t.Helper()
	c, err := mailchimp.New(mailchimp.Credentials{APIKey: "key-us6"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]tributary.Entity{}
	for _, e := range c.Entities() {
		out[e.Name] = e
	}
	return out
}

// The entities, actions and parameters of the email-marketing section of
// the connector catalogue, names exactly as written there (R = required),
// plus the real API's parameters of segment_members and unsubscribes,
// which the catalogue does not show.
func TestCatalogueMatchesSpec(t *testing.T) {
	paged := "count offset"
	want := map[string]struct {
		actions string
		list    string
		get     string
	}{
		"campaigns": {"list get search", "type status before_send_time since_send_time before_create_time since_create_time list_id folder_id sort_field sort_dir " + paged, "campaign_id:R"},
		"lists":     {"list get search", "before_date_created since_date_created before_campaign_last_sent since_campaign_last_sent email sort_field sort_dir " + paged, "list_id:R"},
		"list_members": {"list get", "list_id:R email_type status since_timestamp_opt before_timestamp_opt since_last_changed before_last_changed unique_email_id vip_only interest_category_id interest_ids interest_match sort_field sort_dir " + paged,
			"list_id:R subscriber_hash:R"},
		"reports":             {"list get search", "type before_send_time since_send_time " + paged, "campaign_id:R"},
		"email_activity":      {"list search", "campaign_id:R since " + paged, ""},
		"automations":         {"list", "before_create_time since_create_time before_start_time since_start_time status " + paged, ""},
		"tags":                {"list", "list_id:R name", ""},
		"interest_categories": {"list get", "list_id:R " + paged, "list_id:R interest_category_id:R"},
		"interests":           {"list get", "list_id:R interest_category_id:R " + paged, "list_id:R interest_category_id:R interest_id:R"},
		"segments":            {"list get", "list_id:R type since_created_at before_created_at since_updated_at before_updated_at " + paged, "list_id:R segment_id:R"},
		"segment_members":     {"list", "list_id:R segment_id:R include_cleaned include_transactional include_unsubscribed " + paged, ""},
		"unsubscribes":        {"list", "campaign_id:R " + paged, ""},
	}
	got := entities(t)
	if len(got) != len(want) {
		t.Errorf("%d entities, want %d", len(got), len(want))
	}
	names := func(ps []tributary.Param) string {
		var s []string
		for _, p := range ps {
			n := p.Name
			if p.Required {
				n += ":R"
			}
			s = append(s, n)
		}
		return strings.Join(s, " ")
	}
	for name, w := range want {
		e, ok := got[name]
		if !ok {
			t.Errorf("no entity %s", name)
			continue
		}
		var acts []string
		for _, a := range e.Actions {
			acts = append(acts, string(a))
		}
		if strings.Join(acts, " ") != w.actions {
			t.Errorf("%s actions %v, want %s", name, acts, w.actions)
		}
		if g := names(e.Params[tributary.ActionList]); g != w.list {
			t.Errorf("%s list params\n got %s\nwant %s", name, g, w.list)
		}
		if g := names(e.Params[tributary.ActionGet]); g != w.get {
			t.Errorf("%s get params %s, want %s", name, g, w.get)
		}
		if count, ok := e.Param(tributary.ActionList, "count"); ok {
			if count.Type != tributary.TypeInteger || count.Default != mailchimp.DefaultCount || count.Max == nil || *count.Max != mailchimp.MaxCount {
				t.Errorf("%s count: %+v", name, count)
			}
		}
	}
	enums := map[string][]string{
		"campaigns.type":              {"regular", "plaintext", "absplit", "rss", "variate"},
		"campaigns.status":            {"save", "paused", "schedule", "sending", "sent"},
		"campaigns.sort_field":        {"create_time", "send_time"},
		"campaigns.sort_dir":          {"ASC", "DESC"},
		"lists.sort_field":            {"date_created"},
		"list_members.status":         {"subscribed", "unsubscribed", "cleaned", "pending", "transactional", "archived"},
		"list_members.interest_match": {"any", "all", "none"},
		"list_members.sort_field":     {"timestamp_opt", "timestamp_signup", "last_changed"},
		"reports.type":                {"regular", "plaintext", "absplit", "rss", "variate"},
		"automations.status":          {"save", "paused", "sending"},
	}
	for key, want := range enums {
		ent, pname, _ := strings.Cut(key, ".")
		p, ok := got[ent].Param(tributary.ActionList, pname)
		if !ok || !slices.Equal(p.Enum, want) {
			t.Errorf("%s enum %v, want %v", key, p.Enum, want)
		}
	}
}

// The searchable fields with their types, exactly as the catalogue lists
// them (obj → object, int → integer, bool → boolean, arr → array), the
// date-time strings typed date-time.
func TestSearchableFields(t *testing.T) {
	want := map[string]string{
		"campaigns":      "ab_split_opts:object archive_url:string content_type:string create_time:date-time delivery_status:object emails_sent:integer id:string long_archive_url:string needs_block_refresh:boolean parent_campaign_id:string recipients:object report_summary:object resendable:boolean rss_opts:object send_time:date-time settings:object social_card:object status:string tracking:object type:string variate_settings:object web_id:integer",
		"lists":          "beamer_address:string campaign_defaults:object contact:object date_created:date-time double_optin:boolean email_type_option:boolean has_welcome:boolean id:string list_rating:integer marketing_permissions:boolean modules:array name:string notify_on_subscribe:string notify_on_unsubscribe:string permission_reminder:string stats:object subscribe_url_long:string subscribe_url_short:string use_archive_bar:boolean visibility:string web_id:integer",
		"reports":        "ab_split:object abuse_reports:integer bounces:object campaign_title:string clicks:object delivery_status:object ecommerce:object emails_sent:integer facebook_likes:object forwards:object id:string industry_stats:object list_id:string list_is_active:boolean list_name:string list_stats:object opens:object preview_text:string rss_last_send:date-time send_time:date-time share_report:object subject_line:string timeseries:array timewarp:array type:string unsubscribed:integer",
		"email_activity": "action:string campaign_id:string email_address:string email_id:string ip:string list_id:string list_is_active:boolean timestamp:date-time type:string url:string",
	}
	for name, e := range entities(t) {
		var fields []string
		for _, f := range e.Searchable {
			fields = append(fields, f.Name+":"+string(f.Type))
		}
		slices.Sort(fields)
		if d := cmp.Diff(want[name], strings.Join(fields, " ")); d != "" {
			t.Errorf("%s searchable fields (-want +got):\n%s", name, d)
		}
		if (want[name] != "") != e.Supports(tributary.ActionSearch) {
			t.Errorf("%s: search offered = %v", name, e.Supports(tributary.ActionSearch))
		}
	}
}

// Typed params encode to exactly the catalogue's names; zero values are
// not sent.
func TestTypedParamsEncode(t *testing.T) {
	p, err := tributary.EncodeParams(mailchimp.ListMemberListParams{ListID: "l1", Paging: mailchimp.Paging{Count: 50, Offset: 100},
		Status: "subscribed", VIPOnly: true, InterestIDs: "a,b", SortDir: "DESC"})
	if err != nil {
		t.Fatal(err)
	}
	want := tributary.Params{"list_id": "l1", "count": 50, "offset": 100, "status": "subscribed", "vip_only": true, "interest_ids": "a,b", "sort_dir": "DESC"}
	if d := cmp.Diff(want, p); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := tributary.Validate(mailchimp.Type, mapValues(entities(t)), "list_members", tributary.ActionList, p); err != nil {
		t.Errorf("typed params do not validate: %v", err)
	}
}

func mapValues(m map[string]tributary.Entity) []tributary.Entity {
	var out []tributary.Entity
	for _, e := range m {
		out = append(out, e)
	}
	return out
}
