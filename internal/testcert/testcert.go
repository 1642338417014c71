// Package testcert makes self-signed certificates for tests' TLS servers
// (a relay's STARTTLS, HTTPS servers a client must not trust): each
// signed by its own fresh key, from the template the test writes.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"testing"
)

// Cert is a certificate Make made: as a TLS server presents it, and its
// parts for files (the DER of the certificate, its private key).
type Cert struct {
	TLS tls.Certificate
	DER []byte
	Key *ecdsa.PrivateKey
}

// Make signs tmpl with a fresh P-256 key of its own, or ends the test.
func Make(t testing.TB, tmpl *x509.Certificate) Cert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return Cert{TLS: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, DER: der, Key: key}
}
