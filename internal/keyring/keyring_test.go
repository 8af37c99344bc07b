package keyring_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/internal/keyring"
)

// Fixed keys, so that the leak tests know what must never be printed.
var (
	oldKey = bytes.Repeat([]byte{0xA1}, 32)
	newKey = bytes.Repeat([]byte{0xB2}, 32)
)

func line(id string, k []byte) string { return id + ":" + base64.StdEncoding.EncodeToString(k) }

func mustParse(t testing.TB, text string) *keyring.Keyring {
	t.Helper()
	k, err := keyring.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var aad = []byte("connector-7f3a")

func TestRoundTrip(t *testing.T) {
	k := mustParse(t, "# production keys\n\n"+line("old", oldKey)+"\n")
	for _, plain := range [][]byte{nil, {}, []byte("x"), []byte(`{"refresh_token":"r-123","client_secret":"s"}`), bytes.Repeat([]byte("z"), 100_000)} {
		sealed, err := k.Seal(plain, aad)
		if err != nil {
			t.Fatal(err)
		}
		if len(plain) > 4 && bytes.Contains(sealed, plain) {
			t.Fatalf("the sealed value contains the plaintext")
		}
		got, err := k.Open(sealed, aad)
		if err != nil {
			t.Fatalf("open %d bytes: %v", len(plain), err)
		}
		if !bytes.Equal(got, plain) {
			t.Fatalf("round trip of %d bytes gave %d bytes", len(plain), len(got))
		}
		if id, err := keyring.KeyID(sealed); err != nil || id != "old" {
			t.Errorf("KeyID = %q, %v", id, err)
		}
	}
	// Two seals of the same plaintext differ (fresh data key and nonces).
	a, _ := k.Seal([]byte("same"), aad)
	b, _ := k.Seal([]byte("same"), aad)
	if bytes.Equal(a, b) {
		t.Error("two seals of the same plaintext are equal")
	}
}

// Every single-bit flip, every truncation and every wrong aad fails with
// ErrTampered or ErrUnknownKey, without panicking; Rewrap and KeyID survive
// the same inputs.
func TestTamper(t *testing.T) {
	k := mustParse(t, line("new", newKey)+"\n"+line("old", oldKey))
	sealed, err := k.Seal([]byte("the vendor's refresh token"), aad)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, what string, blob, aad []byte) {
		t.Helper()
		_, err := k.Open(blob, aad)
		if !errors.Is(err, keyring.ErrTampered) && !errors.Is(err, keyring.ErrUnknownKey) {
			t.Fatalf("%s: Open error = %v", what, err)
		}
		// Rewrap does not read the ciphertext: a change there passes Rewrap,
		// and what it returns still fails Open.
		out, _, err := k.Rewrap(blob, aad)
		if err == nil {
			if _, err := k.Open(out, aad); !errors.Is(err, keyring.ErrTampered) {
				t.Fatalf("%s: Open after Rewrap: %v", what, err)
			}
		} else if !errors.Is(err, keyring.ErrTampered) && !errors.Is(err, keyring.ErrUnknownKey) {
			t.Fatalf("%s: Rewrap error = %v", what, err)
		}
		_, _ = keyring.KeyID(blob)
	}
	for i := range sealed {
		for bit := range 8 {
			b := bytes.Clone(sealed)
			b[i] ^= 1 << bit
			check(t, fmt.Sprintf("byte %d bit %d flipped", i, bit), b, aad)
		}
	}
	for n := range len(sealed) {
		check(t, fmt.Sprintf("truncated to %d bytes", n), sealed[:n:n], aad)
	}
	check(t, "a byte appended", append(bytes.Clone(sealed), 0), aad)
	for _, other := range [][]byte{nil, []byte("connector-7f3b"), []byte("connector-7f3a\x00"), []byte("connector-7f3")} {
		_, err := k.Open(sealed, other)
		if !errors.Is(err, keyring.ErrTampered) {
			t.Errorf("aad %q: %v, want ErrTampered", other, err)
		}
	}
}

// A blob whose key id is replaced by another key of the ring, or by one the
// ring does not hold, does not open.
func TestSwappedKeyID(t *testing.T) {
	// Ids of the same length, so the layout is unchanged.
	k := mustParse(t, line("k1", newKey)+"\n"+line("k2", oldKey))
	sealed, err := k.Seal([]byte("secret"), aad)
	if err != nil {
		t.Fatal(err)
	}
	swapped := bytes.Replace(sealed, []byte("k1"), []byte("k2"), 1)
	if _, err := k.Open(swapped, aad); !errors.Is(err, keyring.ErrTampered) {
		t.Errorf("key id swapped to another key of the ring: %v, want ErrTampered", err)
	}
	unknown := bytes.Replace(sealed, []byte("k1"), []byte("k9"), 1)
	if _, err := k.Open(unknown, aad); !errors.Is(err, keyring.ErrUnknownKey) || !strings.Contains(err.Error(), "k9") {
		t.Errorf("unknown key id: %v, want ErrUnknownKey naming k9", err)
	}
	if _, _, err := k.Rewrap(unknown, aad); !errors.Is(err, keyring.ErrUnknownKey) {
		t.Errorf("Rewrap of an unknown key id: %v", err)
	}
	// A blob copied onto another connector fails, under Rewrap too.
	if _, _, err := k.Rewrap(sealed, []byte("connector-other")); !errors.Is(err, keyring.ErrTampered) {
		t.Errorf("Rewrap with another aad: %v", err)
	}
}

// Rotation: ring "new,old" opens old blobs and seals under new; Rewrap moves
// old blobs to new (and leaves new ones alone); ring "new" alone then opens
// them all, and no longer opens a blob that was not rewrapped.
func TestRotation(t *testing.T) {
	old := mustParse(t, line("old", oldKey))
	plain := []byte(`{"access_token":"a","refresh_token":"r"}`)
	oldBlob, err := old.Seal(plain, aad)
	if err != nil {
		t.Fatal(err)
	}
	notRewrapped, _ := old.Seal(plain, aad)

	both := mustParse(t, line("new", newKey)+"\n"+line("old", oldKey))
	if both.Primary() != "new" {
		t.Fatalf("primary = %q", both.Primary())
	}
	if got, err := both.Open(oldBlob, aad); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("new,old opens an old blob: %v", err)
	}
	newBlob, err := both.Seal(plain, aad)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := keyring.KeyID(newBlob); id != "new" {
		t.Errorf("sealed under %q, want new", id)
	}
	moved, changed, err := both.Rewrap(oldBlob, aad)
	if err != nil || !changed {
		t.Fatalf("Rewrap: changed=%v err=%v", changed, err)
	}
	if id, _ := keyring.KeyID(moved); id != "new" {
		t.Errorf("rewrapped under %q, want new", id)
	}
	// The ciphertext is untouched: the last nonce+ciphertext bytes match.
	tail := len(plain) + 16 + 12
	if !bytes.Equal(moved[len(moved)-tail:], oldBlob[len(oldBlob)-tail:]) {
		t.Error("Rewrap changed the ciphertext")
	}
	same, changed, err := both.Rewrap(newBlob, aad)
	if err != nil || changed || !bytes.Equal(same, newBlob) {
		t.Errorf("Rewrap of a blob under the primary: changed=%v err=%v", changed, err)
	}

	onlyNew := mustParse(t, line("new", newKey))
	for name, b := range map[string][]byte{"rewrapped": moved, "sealed under new": newBlob} {
		if got, err := onlyNew.Open(b, aad); err != nil || !bytes.Equal(got, plain) {
			t.Errorf("ring new opens the %s blob: %v", name, err)
		}
	}
	if _, err := onlyNew.Open(notRewrapped, aad); !errors.Is(err, keyring.ErrUnknownKey) {
		t.Errorf("ring new opens a blob still under old: %v, want ErrUnknownKey", err)
	}
	if _, err := old.Open(moved, aad); !errors.Is(err, keyring.ErrUnknownKey) {
		t.Errorf("ring old opens a rewrapped blob: %v, want ErrUnknownKey", err)
	}
}

// No printed form of a Keyring, and no error, shows key bytes in any
// encoding.
func TestKeyBytesNeverPrinted(t *testing.T) {
	text := line("new", newKey) + "\n" + line("old", oldKey)
	k := mustParse(t, text)
	forbidden := []string{
		base64.StdEncoding.EncodeToString(newKey), base64.StdEncoding.EncodeToString(oldKey),
		fmt.Sprintf("%x", newKey), fmt.Sprintf("%x", oldKey), fmt.Sprintf("%X", oldKey),
		fmt.Sprint(newKey), fmt.Sprint(oldKey), string(newKey), string(oldKey),
		"161, 161, 161", "178, 178, 178", "0xa1, 0xa1", "0xb2, 0xb2", `\xa1\xa1`, `\xb2\xb2`, "a1a1a1", "b2b2b2",
	}
	var outs []string
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v"} {
		outs = append(outs, fmt.Sprintf(f, k), fmt.Sprintf(f, *k), fmt.Sprintf(f, []any{k}), fmt.Sprintf(f, struct{ K *keyring.Keyring }{k}))
	}
	outs = append(outs, fmt.Sprintf("%+v", struct{ K keyring.Keyring }{*k}), k.String(), k.GoString())
	var log bytes.Buffer
	slog.New(slog.NewJSONHandler(&log, nil)).Info("ring", "keyring", k)
	slog.New(slog.NewTextHandler(&log, nil)).Info("ring", "keyring", *k)
	outs = append(outs, log.String())
	sealed, _ := k.Seal([]byte("p"), aad)
	_, err1 := k.Open(sealed, []byte("other"))
	_, err2 := k.Open(sealed[:20], aad)
	_, err3 := mustParse(t, line("other", oldKey)).Open(sealed, aad)
	for _, err := range []error{err1, err2, err3} {
		outs = append(outs, fmt.Sprintf("%v %+v %#v", err, err, err))
	}
	for _, bad := range []string{
		base64.StdEncoding.EncodeToString(newKey),                       // no id
		"new:" + base64.StdEncoding.EncodeToString(newKey[:31]),         // short key
		"new:" + base64.StdEncoding.EncodeToString(newKey)[:40] + "!!!", // bad base64
		"bad id:" + base64.StdEncoding.EncodeToString(newKey),
		text + "\n" + line("new", oldKey), // duplicate
	} {
		_, err := keyring.Parse(bad)
		if err == nil {
			t.Fatalf("Parse accepted a bad file")
		}
		outs = append(outs, fmt.Sprintf("%v %+v %#v", err, err, err))
	}
	for _, out := range outs {
		for _, f := range forbidden {
			if strings.Contains(out, f) {
				t.Errorf("printed form %q shows key material %q", out, f)
			}
		}
	}
	if s := fmt.Sprint(k); !strings.Contains(s, "new") || !strings.Contains(s, "old") {
		t.Errorf("String %q does not name the key ids", s)
	}
}

func TestParseErrors(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(newKey)
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "no key"},
		{"comments only", "# nothing\n\n   \n", "no key"},
		{"no colon", "# c\n" + good, "line 2"},
		{"empty id", ":" + good, "line 1"},
		{"id with a space", "a b:" + good, "line 1"},
		{"id too long", strings.Repeat("a", 65) + ":" + good, "line 1"},
		{"id with a slash", "a/b:" + good, "line 1"},
		{"not base64", "k:" + strings.Repeat("*", 44), "not valid base64"},
		{"unpadded", "k:" + strings.TrimRight(good, "="), "not valid base64"},
		{"31 bytes", "k:" + base64.StdEncoding.EncodeToString(newKey[:31]), "31 bytes"},
		{"33 bytes", "k:" + base64.StdEncoding.EncodeToString(append(bytes.Clone(newKey), 1)), "33 bytes"},
		{"duplicate id", "k:" + good + "\n\n# x\nk:" + base64.StdEncoding.EncodeToString(oldKey), "line 4"},
		{"empty key", "k:", "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := keyring.Parse(tt.text)
			if !errors.Is(err, keyring.ErrInvalidKeyFile) || !strings.Contains(err.Error(), tt.want) || k != nil {
				t.Errorf("Parse: %v, want ErrInvalidKeyFile mentioning %q", err, tt.want)
			}
		})
	}
	// Accepted: CRLF, surrounding space, ids at the limits, comments.
	k, err := keyring.Parse("# c\r\n  " + strings.Repeat("A", 64) + ":" + good + "  \r\n" + "a.b_c-9:" + base64.StdEncoding.EncodeToString(oldKey) + "\r\n")
	if err != nil {
		t.Fatal(err)
	}
	if k.Primary() != strings.Repeat("A", 64) || len(k.IDs()) != 2 || k.IDs()[1] != "a.b_c-9" {
		t.Errorf("ids %v", k.IDs())
	}
}

func TestNewKey(t *testing.T) {
	l1, err := keyring.NewKey("k2026")
	if err != nil {
		t.Fatal(err)
	}
	l2, _ := keyring.NewKey("k2026")
	if l1 == l2 || !strings.HasPrefix(l1, "k2026:") {
		t.Errorf("NewKey lines %q, %q", l1, l2)
	}
	gen, err := keyring.NewKey("")
	if err != nil {
		t.Fatal(err)
	}
	k := mustParse(t, gen+"\n"+l1)
	if id, _, _ := strings.Cut(gen, ":"); k.Primary() != id || id == "" {
		t.Errorf("generated id %q, primary %q", id, k.Primary())
	}
	sealed, err := k.Seal([]byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := k.Open(sealed, nil); err != nil || string(p) != "x" {
		t.Errorf("open: %v", err)
	}
	if _, err := keyring.NewKey("no spaces"); !errors.Is(err, keyring.ErrInvalidKeyID) {
		t.Errorf("bad id: %v", err)
	}
}

// A Keyring not made by Parse fails instead of panicking.
func TestZeroKeyring(t *testing.T) {
	for _, k := range []*keyring.Keyring{nil, new(keyring.Keyring)} {
		if _, err := k.Seal([]byte("x"), nil); !errors.Is(err, keyring.ErrEmpty) {
			t.Errorf("Seal: %v", err)
		}
		if _, err := k.Open([]byte("x"), nil); !errors.Is(err, keyring.ErrEmpty) {
			t.Errorf("Open: %v", err)
		}
		if _, _, err := k.Rewrap([]byte("x"), nil); !errors.Is(err, keyring.ErrEmpty) {
			t.Errorf("Rewrap: %v", err)
		}
		_ = k.Primary() + fmt.Sprint(k)
	}
}

// FuzzOpen: no input panics Open, Rewrap or KeyID; every failure is
// ErrTampered or ErrUnknownKey; whatever opens is what was sealed.
func FuzzOpen(f *testing.F) {
	k := mustParse(f, line("new", newKey)+"\n"+line("old", oldKey))
	old := mustParse(f, line("old", oldKey))
	plain := []byte("fuzz plaintext")
	s1, _ := k.Seal(plain, aad)
	s2, _ := old.Seal(plain, aad)
	f.Add(s1, aad)
	f.Add(s2, aad)
	f.Add(s1[:40], aad)
	f.Add([]byte{1, 3, 'n', 'e', 'w'}, []byte(nil))
	f.Fuzz(func(t *testing.T, sealed, aad []byte) {
		got, err := k.Open(sealed, aad)
		switch {
		case err == nil && !bytes.Equal(got, plain):
			t.Fatalf("opened a forged blob: %q", got)
		case err != nil && !errors.Is(err, keyring.ErrTampered) && !errors.Is(err, keyring.ErrUnknownKey):
			t.Fatalf("error %v is neither ErrTampered nor ErrUnknownKey", err)
		}
		out, _, rerr := k.Rewrap(sealed, aad)
		if rerr == nil {
			if id, _ := keyring.KeyID(out); id != "new" {
				t.Fatalf("Rewrap left the blob under %q", id)
			}
		} else if !errors.Is(rerr, keyring.ErrTampered) && !errors.Is(rerr, keyring.ErrUnknownKey) {
			t.Fatalf("Rewrap error %v", rerr)
		}
		_, _ = keyring.KeyID(sealed)
	})
}

// Signing keys are per key and per purpose, stable across parses of the
// same file, and found by id while the key stays in the ring.
func TestSigningKeys(t *testing.T) {
	a, _ := keyring.NewKey("a")
	b, _ := keyring.NewKey("b")
	ring, err := keyring.Parse(a + "\n" + b)
	if err != nil {
		t.Fatal(err)
	}
	id, k1 := ring.SigningKey("tokens")
	if id != "a" || len(k1) != 32 {
		t.Fatalf("SigningKey: %q, %d bytes", id, len(k1))
	}
	_, k2 := ring.SigningKey("other")
	if string(k1) == string(k2) {
		t.Error("two purposes share a key")
	}
	again, _ := keyring.Parse(a)
	if _, k := again.SigningKey("tokens"); string(k) != string(k1) {
		t.Error("the same key file derives another key")
	}
	rotated, _ := keyring.Parse(b + "\n" + a)
	if id, k := rotated.SigningKey("tokens"); id != "b" || string(k) == string(k1) {
		t.Errorf("after rotation: %q", id)
	}
	if k, ok := rotated.SigningKeyByID("a", "tokens"); !ok || string(k) != string(k1) {
		t.Error("the old key's signing key is not found by id")
	}
	if _, ok := again.SigningKeyByID("b", "tokens"); ok {
		t.Error("a key not in the ring was found")
	}
	var empty keyring.Keyring
	if id, k := empty.SigningKey("x"); id != "" || k != nil {
		t.Error("an empty ring signs")
	}
}

func BenchmarkSealOpen(b *testing.B) {
	k := mustParse(b, line("new", newKey)+"\n"+line("old", oldKey))
	plain := bytes.Repeat([]byte("c"), 1024)
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		sealed, err := k.Seal(plain, aad)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := k.Open(sealed, aad); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRewrap(b *testing.B) {
	old := mustParse(b, line("old", oldKey))
	k := mustParse(b, line("new", newKey)+"\n"+line("old", oldKey))
	sealed, _ := old.Seal(bytes.Repeat([]byte("c"), 1024), aad)
	for b.Loop() {
		if _, _, err := k.Rewrap(sealed, aad); err != nil {
			b.Fatal(err)
		}
	}
}
