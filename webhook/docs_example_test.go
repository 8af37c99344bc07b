package webhook_test

// docs/webhooks.md's go block (see sandbox/docs_example_test.go): a
// receiver verifies each request with another library than this one's.

import (
	"io"
	"net/http"

	svix "github.com/svix/svix-webhooks/go"
)

// docs/webhooks.md: a receiver verifies each request.
func Example_webhooksVerify() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	_ = func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		// doc: docs/webhooks.md
		wh, err := svix.NewWebhook(secret) // "whsec_…"
		if err != nil {
			http.Error(w, "misconfigured", http.StatusInternalServerError)
			return
		}
		if err := wh.Verify(body, r.Header); err != nil { // also refuses timestamps older than 5 minutes
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		// Process it once: store the webhook-id, and skip ids you have already seen.
		// end doc
	}
}
