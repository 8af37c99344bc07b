package intercom_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/intercom"
)

func TestParseStartDate(t *testing.T) {
	for _, s := range []string{"2024-01-31T00:00:00Z", "1999-12-31T23:59:59Z", "2024-02-29T12:30:45Z"} {
		d, err := intercom.ParseStartDate(s)
		if err != nil || d.String() != s || d.Time().Location() != time.UTC || d.IsZero() {
			t.Errorf("%s: %v %q", s, err, d)
		}
	}
	for _, s := range []string{
		"", "2024-01-31", "2024-01-31T00:00:00", "2024-01-31T00:00:00z", "2024-01-31 00:00:00Z",
		"2024-01-31T00:00:00.5Z", "2024-01-31T00:00:00+00:00", "2024-01-31T00:00:00+02:00",
		"2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-31T24:00:00Z",
		"2024-1-31T00:00:00Z", "24-01-31T00:00:00Z", " 2024-01-31T00:00:00Z", "2024-01-31T00:00:60Z",
	} {
		_, err := intercom.ParseStartDate(s)
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "replication_config.start_date" {
			t.Errorf("%q: err = %v, want ErrInvalidParams", s, err)
		}
	}
}

func TestStartDateJSONAndReplicationConfig(t *testing.T) {
	at := time.Date(2024, 3, 1, 9, 30, 15, 999_000_000, time.FixedZone("CET", 3600))
	d := intercom.NewStartDate(at)
	if d.String() != "2024-03-01T08:30:15Z" {
		t.Errorf("NewStartDate: %s", d)
	}
	b, err := json.Marshal(struct {
		StartDate intercom.StartDate `json:"start_date"`
	}{d})
	if err != nil || string(b) != `{"start_date":"2024-03-01T08:30:15Z"}` {
		t.Errorf("marshal: %s %v", b, err)
	}
	var back struct {
		StartDate intercom.StartDate `json:"start_date"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.StartDate != d {
		t.Errorf("unmarshal: %v %v", back.StartDate, err)
	}
	for _, bad := range []string{`{"start_date":"2024-03-01"}`, `{"start_date":1709281815}`, `{"start_date":"2024-03-01T08:30:15.000Z"}`} {
		if err := json.Unmarshal([]byte(bad), &back); !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"start_date":null}`), &back); err != nil || !back.StartDate.IsZero() {
		t.Errorf("null: %v %v", back.StartDate, err)
	}
	if b, _ := json.Marshal(intercom.StartDate{}); string(b) != "null" {
		t.Errorf("zero marshals as %s", b)
	}

	cfg := intercom.ReplicationConfig(at)
	b, _ = json.Marshal(cfg)
	if string(b) != `{"start_date":"2024-03-01T08:30:15Z"}` {
		t.Errorf("ReplicationConfig: %s", b)
	}
}

func TestCheckReplicationConfig(t *testing.T) {
	if err := intercom.CheckReplicationConfig(intercom.ReplicationConfig(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	for _, rc := range []map[string]any{nil, {}, {"start_date": "2024-01-31"}, {"start_date": "2024-01-31T00:00:00+01:00"}, {"start_date": 7}, {"start_date": "2024-01-31T00:00:00Z", "end": "x"}} {
		if err := intercom.CheckReplicationConfig(rc); !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("%v: err = %v", rc, err)
		}
	}
}
