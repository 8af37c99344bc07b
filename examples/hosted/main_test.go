package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestHostedExampleOffline(t *testing.T) {
	t.Setenv("TRIBUTARY_HOSTED_URL", "")
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"created connector conn_", "tickets: 10 on the first page", "agents:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
