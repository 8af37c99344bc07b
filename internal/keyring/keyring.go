// Package keyring encrypts small secrets (a connector's vendor
// credentials) at rest with AES-256-GCM envelope encryption.
//
// A Keyring holds key-encryption keys, read from a key file with Parse.
// Seal encrypts each plaintext under a fresh random data key and wraps that
// data key under the ring's primary key; Open accepts a blob sealed by any
// key of the ring. Rotating keys takes three steps: put a new key first
// (the old one stays, to open old blobs), Rewrap every stored blob (cheap:
// only the wrapped data key changes), then drop the old key.
//
// The caller's additional data (aad) is bound to both layers: the service
// passes the connector id, so that a blob copied onto another connector's
// row fails to open.
//
// A Keyring never prints its key bytes: String, Format, GoString and
// LogValue show key ids only, and no error carries key material.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Errors returned by the package; match them with errors.Is.
var (
	// ErrUnknownKey reports a blob sealed by a key the ring does not hold.
	ErrUnknownKey = errors.New("keyring: the key that sealed this value is not in the keyring")
	// ErrTampered reports a blob that fails authentication: it was altered
	// or truncated, or is opened with other additional data than it was
	// sealed with.
	ErrTampered = errors.New("keyring: the sealed value is corrupt or does not belong here")
	// ErrInvalidKeyFile reports a key file Parse cannot read.
	ErrInvalidKeyFile = errors.New("keyring: invalid key file")
	// ErrInvalidKeyID reports a key id outside [A-Za-z0-9._-]{1,64}.
	ErrInvalidKeyID = errors.New("keyring: invalid key id")
	// ErrEmpty reports a Keyring that was not made by Parse (it holds no key).
	ErrEmpty = errors.New("keyring: the keyring holds no key")
)

const (
	// version is the format byte every sealed blob starts with.
	version = 1
	// keySize is the size of key-encryption and data keys (AES-256).
	keySize = 32
	// nonceSize is the GCM nonce size.
	nonceSize = 12
	// tagSize is the GCM authentication tag size.
	tagSize = 16
	// maxIDLen is the longest key id.
	maxIDLen = 64
	// wrappedSize is the size of a wrapped data key: nonce, key, tag.
	wrappedSize = nonceSize + keySize + tagSize
)

// Domain-separation prefixes of the additional data of each layer.
const (
	wrapDomain = "tributary/keyring/v1/wrap\x00"
	dataDomain = "tributary/keyring/v1/data\x00"
)

// key is one key-encryption key; only its AEAD is kept.
type key struct {
	id   string
	aead cipher.AEAD
}

// Keyring holds key-encryption keys; the first is the primary, which seals;
// all of them open. It is safe for concurrent use. Its printed forms show
// key ids only, never key bytes.
type Keyring struct {
	keys []key
	byID map[string]cipher.AEAD
}

// Parse reads keys, one per line: "<id>:<base64 of exactly 32 bytes>"
// (standard base64, padded). Blank lines and lines starting with # are
// ignored, as is space around a line; the first key is the primary. Ids
// match [A-Za-z0-9._-]{1,64} and are unique. Errors name the line number,
// never the line's content.
func Parse(text string) (*Keyring, error) {
	k := &Keyring{byID: map[string]cipher.AEAD{}}
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, b64, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: line %d: want <id>:<base64 key>", ErrInvalidKeyFile, n)
		}
		if !validID(id) {
			return nil, fmt.Errorf("%w: line %d: the key id must match [A-Za-z0-9._-]{1,64}", ErrInvalidKeyFile, n)
		}
		if _, dup := k.byID[id]; dup {
			return nil, fmt.Errorf("%w: line %d: key id %q appears twice", ErrInvalidKeyFile, n, id)
		}
		raw, err := base64.StdEncoding.Strict().DecodeString(b64)
		if err != nil {
			// base64's error names an offset in the key: left out.
			return nil, fmt.Errorf("%w: line %d: the key is not valid base64", ErrInvalidKeyFile, n)
		}
		if len(raw) != keySize {
			clear(raw)
			return nil, fmt.Errorf("%w: line %d: the key is %d bytes, want %d", ErrInvalidKeyFile, n, len(raw), keySize)
		}
		aead, err := newAEAD(raw)
		clear(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrInvalidKeyFile, n, err)
		}
		k.keys = append(k.keys, key{id: id, aead: aead})
		k.byID[id] = aead
	}
	if len(k.keys) == 0 {
		return nil, fmt.Errorf("%w: no key", ErrInvalidKeyFile)
	}
	return k, nil
}

// NewKey returns a fresh line for a key file, "<id>:<base64>", with a
// random key from crypto/rand. An empty id is replaced by a generated one
// ("k" and today's date and random hex, e.g. k20261126-3f9a1c2e), so that
// ids of later keys sort later.
func NewKey(id string) (string, error) {
	if id == "" {
		var r [4]byte
		if _, err := rand.Read(r[:]); err != nil {
			return "", fmt.Errorf("keyring: random id: %w", err)
		}
		id = "k" + time.Now().UTC().Format("20060102") + "-" + hex.EncodeToString(r[:])
	}
	if !validID(id) {
		return "", fmt.Errorf("%w: it must match [A-Za-z0-9._-]{1,64}", ErrInvalidKeyID)
	}
	raw := make([]byte, keySize)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("keyring: random key: %w", err)
	}
	line := id + ":" + base64.StdEncoding.EncodeToString(raw)
	clear(raw)
	return line, nil
}

// Primary returns the id of the key that seals ("" for a Keyring not made
// by Parse).
func (k *Keyring) Primary() string {
	if k.empty() {
		return ""
	}
	return k.keys[0].id
}

func (k *Keyring) empty() bool { return k == nil || len(k.keys) == 0 }

// IDs returns the ids of the ring's keys, the primary first.
func (k *Keyring) IDs() []string {
	if k == nil {
		return nil
	}
	ids := make([]string, len(k.keys))
	for i, kk := range k.keys {
		ids[i] = kk.id
	}
	return ids
}

// Seal encrypts plaintext: a fresh random 32-byte data key encrypts it
// (AES-256-GCM, random nonce, aad bound), and the primary key wraps the
// data key (AES-256-GCM, random nonce, aad and key id bound). The output is
// self-describing:
//
//	version (1 byte) | id length (1 byte) | id | wrapped data key (60 bytes:
//	nonce, key, tag) | nonce (12 bytes) | ciphertext and tag
func (k *Keyring) Seal(plaintext, aad []byte) ([]byte, error) {
	if k.empty() {
		return nil, ErrEmpty
	}
	primary := k.keys[0]
	dk := make([]byte, keySize)
	defer clear(dk)
	if _, err := rand.Read(dk); err != nil {
		return nil, fmt.Errorf("keyring: random data key: %w", err)
	}
	data, err := newAEAD(dk)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 2+len(primary.id)+wrappedSize+nonceSize+len(plaintext)+tagSize)
	out = append(out, version, byte(len(primary.id)))
	out = append(out, primary.id...)
	out, err = wrap(out, primary, dk, aad)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, nonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("keyring: random nonce: %w", err)
	}
	out = append(out, nonce...)
	return data.Seal(out, nonce, plaintext, dataAAD(aad)), nil
}

// Open reverses Seal with whichever key of the ring sealed the blob. It
// fails with ErrUnknownKey when that key is not in the ring, and with
// ErrTampered when authentication fails (other aad, a changed byte, a
// truncated blob).
func (k *Keyring) Open(sealed, aad []byte) ([]byte, error) {
	if k.empty() {
		return nil, ErrEmpty
	}
	b, err := parse(sealed)
	if err != nil {
		return nil, err
	}
	dk, err := k.unwrap(b, aad)
	if err != nil {
		return nil, err
	}
	defer clear(dk)
	data, err := newAEAD(dk)
	if err != nil {
		return nil, err
	}
	plain, err := data.Open(nil, b.nonce, b.ciphertext, dataAAD(aad))
	if err != nil {
		return nil, fmt.Errorf("%w: the ciphertext fails authentication", ErrTampered)
	}
	return plain, nil
}

// Rewrap re-wraps the data key of sealed under the primary key without
// touching the ciphertext (cheap key rotation); changed is false, and out
// is sealed itself, when it is already under the primary. The wrapped data
// key is authenticated (ErrUnknownKey, ErrTampered as for Open); the
// ciphertext is not decrypted, so a damaged ciphertext is found by Open.
func (k *Keyring) Rewrap(sealed, aad []byte) (out []byte, changed bool, err error) {
	if k.empty() {
		return nil, false, ErrEmpty
	}
	b, err := parse(sealed)
	if err != nil {
		return nil, false, err
	}
	dk, err := k.unwrap(b, aad)
	if err != nil {
		return nil, false, err
	}
	defer clear(dk)
	primary := k.keys[0]
	if b.id == primary.id {
		return sealed, false, nil
	}
	out = make([]byte, 0, 2+len(primary.id)+wrappedSize+nonceSize+len(b.ciphertext))
	out = append(out, version, byte(len(primary.id)))
	out = append(out, primary.id...)
	if out, err = wrap(out, primary, dk, aad); err != nil {
		return nil, false, err
	}
	out = append(out, b.nonce...)
	out = append(out, b.ciphertext...)
	return out, true, nil
}

// KeyID reports which key sealed a blob (without authenticating it). A
// blob too short or of an unknown format version fails with ErrTampered.
func KeyID(sealed []byte) (string, error) {
	b, err := parse(sealed)
	if err != nil {
		return "", err
	}
	return b.id, nil
}

// String shows the key ids, the primary first; never key bytes.
func (k Keyring) String() string {
	ids := make([]string, len(k.keys))
	for i, kk := range k.keys {
		ids[i] = kk.id
	}
	return "keyring.Keyring{keys: [" + strings.Join(ids, " ") + "]}"
}

// GoString is String, for %#v.
func (k Keyring) GoString() string { return k.String() }

// Format prints String for every verb and flag (%v, %+v, %#v, %s, %q, %x...),
// so no verb reaches the key material.
func (k Keyring) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", k.String())
		return
	}
	_, _ = f.Write([]byte(k.String()))
}

// LogValue implements slog.LogValuer: key ids only.
func (k Keyring) LogValue() slog.Value { return slog.StringValue(k.String()) }

// blob is a parsed sealed value; its slices alias the input.
type blob struct {
	id         string
	header     []byte // version, id length, id
	wrapped    []byte // nonce, wrapped key, tag
	nonce      []byte
	ciphertext []byte // ciphertext and tag
}

// parse splits a sealed value, without authenticating it.
func parse(sealed []byte) (blob, error) {
	if len(sealed) < 2 {
		return blob{}, fmt.Errorf("%w: too short", ErrTampered)
	}
	if sealed[0] != version {
		return blob{}, fmt.Errorf("%w: unknown format version %d", ErrTampered, sealed[0])
	}
	n := int(sealed[1])
	if n == 0 || n > maxIDLen {
		return blob{}, fmt.Errorf("%w: bad key id length", ErrTampered)
	}
	if len(sealed) < 2+n+wrappedSize+nonceSize+tagSize {
		return blob{}, fmt.Errorf("%w: too short", ErrTampered)
	}
	id := string(sealed[2 : 2+n])
	if !validID(id) {
		return blob{}, fmt.Errorf("%w: bad key id", ErrTampered)
	}
	rest := sealed[2+n:]
	return blob{
		id:         id,
		header:     sealed[:2+n],
		wrapped:    rest[:wrappedSize],
		nonce:      rest[wrappedSize : wrappedSize+nonceSize],
		ciphertext: rest[wrappedSize+nonceSize:],
	}, nil
}

// unwrap authenticates and returns the data key of b.
func (k *Keyring) unwrap(b blob, aad []byte) ([]byte, error) {
	kek, ok := k.byID[b.id]
	if !ok {
		return nil, fmt.Errorf("%w: key id %q", ErrUnknownKey, b.id)
	}
	dk, err := kek.Open(nil, b.wrapped[:nonceSize], b.wrapped[nonceSize:], wrapAAD(b.id, aad))
	if err != nil || len(dk) != keySize {
		return nil, fmt.Errorf("%w: the wrapped data key fails authentication", ErrTampered)
	}
	return dk, nil
}

// wrap appends the data key dk wrapped under kek (nonce, ciphertext, tag).
func wrap(dst []byte, kek key, dk, aad []byte) ([]byte, error) {
	nonce := make([]byte, nonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("keyring: random nonce: %w", err)
	}
	dst = append(dst, nonce...)
	return kek.aead.Seal(dst, nonce, dk, wrapAAD(kek.id, aad)), nil
}

// wrapAAD binds the wrapped data key to the format version, the key id and
// the caller's aad.
func wrapAAD(id string, aad []byte) []byte {
	out := make([]byte, 0, len(wrapDomain)+1+len(id)+len(aad))
	out = append(out, wrapDomain...)
	out = append(out, byte(len(id)))
	out = append(out, id...)
	return append(out, aad...)
}

// dataAAD binds the ciphertext to the format version and the caller's aad
// (not to the key id, which Rewrap changes).
func dataAAD(aad []byte) []byte {
	out := make([]byte, 0, len(dataDomain)+len(aad))
	out = append(out, dataDomain...)
	return append(out, aad...)
}

func newAEAD(k []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	return aead, nil
}

// validID reports whether id matches [A-Za-z0-9._-]{1,64}.
func validID(id string) bool {
	if len(id) == 0 || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}
