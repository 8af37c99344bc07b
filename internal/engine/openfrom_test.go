package engine_test

import (
	"errors"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
)

type fakeClient struct{ tributary.Connector }

// TestOpenFromNeverTypedNil: a kind's New that fails gives a nil
// Connector (a *Client returned as is would make a non-nil interface
// holding nil), and a credentials error reaches the caller unchanged.
func TestOpenFromNeverTypedNil(t *testing.T) {
	bad := errors.New("bad")
	fromMap := func(m map[string]any) (string, error) {
		if m == nil {
			return "", bad
		}
		return "creds", nil
	}
	failing := func(string, ...tributary.Option) (*fakeClient, error) { return nil, errors.New("new failed") }
	if c, err := engine.OpenFrom(map[string]any{}, fromMap, failing); err == nil || c != nil {
		t.Errorf("New's failure: %v, %#v", err, c)
	}
	if c, err := engine.OpenFrom(nil, fromMap, failing); !errors.Is(err, bad) || c != nil {
		t.Errorf("credentials' failure: %v, %#v", err, c)
	}
	ok := func(string, ...tributary.Option) (*fakeClient, error) { return &fakeClient{}, nil }
	if c, err := engine.OpenFrom(map[string]any{}, fromMap, ok); err != nil || c == nil {
		t.Errorf("success: %v, %#v", err, c)
	}
}
