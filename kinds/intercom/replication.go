package intercom

import (
	"fmt"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary"
)

// StartDateLayout is the format of replication_config.start_date: UTC,
// whole seconds, YYYY-MM-DDTHH:mm:ssZ.
const StartDateLayout = "2006-01-02T15:04:05Z"

// StartDate is the moment hosted-mode replication of an Intercom connector
// starts from: the replication_config.start_date the hosted service
// requires when the connector is created. It is always UTC with whole
// seconds; the zero StartDate is unset.
type StartDate struct {
	t time.Time
}

// NewStartDate returns t as a StartDate: converted to UTC, with the
// fraction of a second dropped.
func NewStartDate(t time.Time) StartDate {
	if t.IsZero() {
		return StartDate{}
	}
	return StartDate{t: t.UTC().Truncate(time.Second)}
}

// ParseStartDate reads a start_date. Exactly the form
// YYYY-MM-DDTHH:mm:ssZ is accepted: a valid UTC date and time, with no
// fraction of a second and no other offset.
func ParseStartDate(s string) (StartDate, error) {
	t, err := time.Parse(StartDateLayout, s)
	// time.Parse also accepts a fraction after the seconds; the round trip
	// rejects it, and any other deviation from the layout.
	if err != nil || t.Format(StartDateLayout) != s {
		return StartDate{}, &tributary.Error{Kind: Type, Param: "replication_config.start_date", Err: tributary.ErrInvalidParams,
			Message: fmt.Sprintf("%q is not a UTC date-time of the form YYYY-MM-DDTHH:mm:ssZ (e.g. 2024-01-31T00:00:00Z)", s)}
	}
	return StartDate{t: t}, nil
}

// Time returns the start date as a UTC time (the zero time when unset).
func (d StartDate) Time() time.Time { return d.t }

// IsZero reports whether the start date is unset.
func (d StartDate) IsZero() bool { return d.t.IsZero() }

// String returns the start date as YYYY-MM-DDTHH:mm:ssZ ("" when unset).
func (d StartDate) String() string {
	if d.t.IsZero() {
		return ""
	}
	return d.t.Format(StartDateLayout)
}

// MarshalJSON encodes the start date as a JSON string, or null when unset.
func (d StartDate) MarshalJSON() ([]byte, error) {
	if d.t.IsZero() {
		return []byte("null"), nil
	}
	return strconv.AppendQuote(nil, d.String()), nil
}

// UnmarshalJSON decodes a JSON string through ParseStartDate; null leaves
// the start date unset.
func (d *StartDate) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = StartDate{}
		return nil
	}
	s, err := strconv.Unquote(string(b))
	if err != nil || len(b) < 2 || b[0] != '"' {
		return &tributary.Error{Kind: Type, Param: "replication_config.start_date", Err: tributary.ErrInvalidParams,
			Message: "start_date must be a JSON string"}
	}
	v, err := ParseStartDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ReplicationConfig returns the replication_config object the hosted
// service takes when an Intercom connector is created:
// {"start_date": "YYYY-MM-DDTHH:mm:ssZ"}, start in UTC to the second.
func ReplicationConfig(start time.Time) map[string]any {
	return map[string]any{"start_date": NewStartDate(start).String()}
}

// CheckReplicationConfig checks the replication_config of a hosted create
// call: start_date is required and must parse with ParseStartDate; no other
// field is accepted. kinds.CheckReplicationConfig and the hosted client
// call it before anything is sent.
func CheckReplicationConfig(config map[string]any) error {
	bad := func(msg string) error {
		return &tributary.Error{Kind: Type, Param: "replication_config.start_date", Err: tributary.ErrInvalidParams, Message: msg}
	}
	raw, ok := config["start_date"]
	if !ok {
		return bad("intercom needs replication_config.start_date (UTC, YYYY-MM-DDTHH:mm:ssZ)")
	}
	for k := range config {
		if k != "start_date" {
			return &tributary.Error{Kind: Type, Param: "replication_config." + k, Err: tributary.ErrInvalidParams, Message: "replication_config takes only start_date"}
		}
	}
	var s string
	switch v := raw.(type) {
	case string:
		s = v
	case StartDate:
		s = v.String()
	default:
		return bad("start_date must be a string")
	}
	_, err := ParseStartDate(s)
	return err
}

// ReplicationParams declares the keys of an Intercom connector's
// replication_config (kinds.ReplicationParams; describe shows them).
func ReplicationParams() []tributary.Param {
	return []tributary.Param{{Name: "start_date", Type: tributary.TypeString, Required: true,
		Doc: "UTC, YYYY-MM-DDTHH:mm:ssZ: the copies hold the records last updated at or after it; none before it is read or kept"}}
}
