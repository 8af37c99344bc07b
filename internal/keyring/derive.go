package keyring

import (
	"crypto/hmac"
	"crypto/sha256"
)

// derive is HMAC-SHA256(secret, purpose): a key for one purpose that says
// nothing of the secret (HKDF's expand step for one block).
func derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// SigningKey returns the primary key's id and a 32-byte MAC key derived
// from it for purpose (for example signing bearer tokens). Different
// purposes get unrelated keys, and none reveals the key-encryption key.
func (k *Keyring) SigningKey(purpose string) (id string, mac []byte) {
	if k.empty() {
		return "", nil
	}
	return k.keys[0].id, derive(k.keys[0].sub, purpose)
}

// SigningKeyByID returns the MAC key for purpose derived from key id, so
// that what an older key signed still verifies while it stays in the ring;
// false when the ring does not hold id.
func (k *Keyring) SigningKeyByID(id, purpose string) ([]byte, bool) {
	if k.empty() {
		return nil, false
	}
	for _, kk := range k.keys {
		if kk.id == id {
			return derive(kk.sub, purpose), true
		}
	}
	return nil, false
}
