package salesforce

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
)

func objectOf(t *testing.T, entity string) sobject {
	t.Helper()
	for _, o := range sobjects() {
		if o.entity == entity {
			return o
		}
	}
	t.Fatalf("no entity %s", entity)
	return sobject{}
}

func TestCanonicalID(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"001RO0000000001YAA", "001RO0000000001", true},
		{"001RO0000000001", "001RO0000000001", true},
		{"001ro0000000001yaa", "001RO0000000001", true}, // through a case-insensitive system
		{"00qhs00000xyz9kmas", "00QHs00000xYz9K", true},
		{"001RO0000000001YA9", "", false}, // 9 is not a suffix character
		{"001RO00000000", "", false},
		{"001RO0000000001-AA", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := canonicalID(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("canonicalID(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if msg := checkID(objectOf(t, "leads"), "00qhs00000xyz9kmas"); msg != "" {
		t.Errorf("a lower-cased lead id was refused: %s", msg)
	}
	if msg := checkID(objectOf(t, "accounts"), "003RO0000000004YAA"); !strings.Contains(msg, "Contact") || !strings.Contains(msg, "001") {
		t.Errorf("message %q", msg)
	}
}

func TestSOQLFrom(t *testing.T) {
	cases := map[string]string{
		"SELECT Id FROM Account":                                                           "Account",
		"select id from account where name = 'x'":                                          "account",
		"SELECT Id, (SELECT LastName FROM Contacts) FROM Account":                          "Account",
		"SELECT Id FROM Contact WHERE AccountId IN (SELECT Id FROM Account)":               "Contact",
		"SELECT Id, Name FROM Account WHERE Name = 'FROM Lead' AND Description != 'it''s'": "Account",
		"SELECT Id, Name FROM Account WHERE Name = 'a\\' FROM Lead'":                       "Account",
		"SELECT FromDate__c, Id FROM Custom__c":                                            "Custom__c",
		"SELECT TYPEOF What WHEN Account THEN Phone END FROM Event":                        "Event",
		"SELECT Id FROM":           "",
		"SELECT COUNT() FROM Lead": "Lead",
		"garbage":                  "",
	}
	for q, want := range cases {
		if got := soqlFrom(q); got != want {
			t.Errorf("soqlFrom(%q) = %q, want %q", q, got, want)
		}
	}
	acc := objectOf(t, "accounts")
	if msg := checkQuery(acc, "SELECT Id FROM Contact"); !strings.Contains(msg, "query entity") {
		t.Errorf("message %q", msg)
	}
	if msg := checkQuery(acc, "SELECT Id, Name FROM Account WHERE"); msg != "" {
		t.Errorf("a malformed query that reads Account must reach Salesforce: %s", msg)
	}
}

func TestSOSLReturning(t *testing.T) {
	cases := []struct {
		q    string
		want []string
		ok   bool
	}{
		{"FIND {Acme} RETURNING Account(Id, Name)", []string{"Account"}, true},
		{"FIND {Acme} IN NAME FIELDS RETURNING Account(Id, Name WHERE Industry = 'x' ORDER BY Name LIMIT 5), Contact LIMIT 10", []string{"Account", "Contact"}, true},
		{"FIND {RETURNING Contact} RETURNING Lead", []string{"Lead"}, true},
		{"FIND {a\\} RETURNING Contact} RETURNING Lead(Id)", []string{"Lead"}, true},
		{"FIND {Acme} RETURNING Account(Name) WITH SNIPPET", []string{"Account"}, true},
		{"FIND {Acme} RETURNING Account(Name WHERE Name = 'a)b'), Lead", []string{"Account", "Lead"}, true},
		{"FIND {Acme}", nil, false},
		{"FIND quote RETURNING Task(Id)", []string{"Task"}, true},
	}
	for _, c := range cases {
		got, ok := soslReturning(c.q)
		if !reflect.DeepEqual(got, c.want) || ok != c.ok {
			t.Errorf("soslReturning(%q) = %q, %v; want %q, %v", c.q, got, ok, c.want, c.ok)
		}
	}
}

func TestNextRecordsURLShape(t *testing.T) {
	for _, u := range []string{"/services/data/v67.0/query/01gRO0000016PIAYA2-200", "/services/data/v58.0/queryAll/01gRO0000016PIAYA2-2000",
		"https://acme.my.salesforce.com/services/data/v67.0/query/01gRO0000016PIAYA2-200", "/proxy/services/data/v67.0/query/01g-200"} {
		if msg := checkNextRecordsURL(u); msg != "" {
			t.Errorf("%s refused: %s", u, msg)
		}
	}
	for _, u := range []string{"/services/data/v67.0/query", "/services/data/v67.0/query/x/y", "/services/data/v67.0/sobjects/Account/001",
		"/services/data/v67.0/query/x-200?q=1", "/services/data/v67.0/query/x-200#f", "%zz"} {
		if msg := checkNextRecordsURL(u); msg == "" {
			t.Errorf("%s accepted", u)
		}
	}
}

// The searchable fields of the catalogue exist in the typed records, with
// the catalogue's types.
func TestSearchableFieldsMatchRecords(t *testing.T) {
	records := map[string]any{"accounts": Account{}, "contacts": Contact{}, "leads": Lead{}, "opportunities": Opportunity{}, "tasks": Task{}}
	for _, e := range Catalogue() {
		if len(e.Searchable) == 0 {
			continue
		}
		rec, ok := records[e.Name]
		if !ok {
			t.Fatalf("%s has searchable fields but no record type here", e.Name)
		}
		rt := reflect.TypeOf(rec)
		byJSON := map[string]reflect.Type{}
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			byJSON[name] = rt.Field(i).Type
		}
		for _, f := range e.Searchable {
			ft, ok := byJSON[f.Name]
			if !ok {
				t.Errorf("%s: searchable field %s is not in %s", e.Name, f.Name, rt.Name())
				continue
			}
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			want := map[tributary.Type]reflect.Kind{tributary.TypeString: reflect.String, tributary.TypeInteger: reflect.Int64,
				tributary.TypeNumber: reflect.Float64, tributary.TypeBoolean: reflect.Bool, tributary.TypeObject: reflect.Slice,
				tributary.TypeDateTime: reflect.String}[f.Type]
			if ft.Kind() != want {
				t.Errorf("%s.%s: record type %s, catalogue type %s", e.Name, f.Name, ft, f.Type)
			}
		}
	}
}
