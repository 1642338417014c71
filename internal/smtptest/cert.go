package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"
)

// SelfSigned is a certificate for 127.0.0.1 and localhost that signs
// itself, as a small relay's default certificate does: no system root
// vouches for it, so only a client told to trust it (or not to verify)
// completes STARTTLS.
type SelfSigned struct {
	TLS tls.Certificate
	PEM []byte // the certificate alone, as a tls_ca file holds it
	Key []byte // the private key, PEM (PKCS #8), for a relay's own config
}

// NewSelfSigned makes a fresh self-signed certificate valid for a day
// around now.
func NewSelfSigned(t testing.TB, now time.Time) SelfSigned {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "relay.test"},
		NotBefore:             now.Add(-12 * time.Hour),
		NotAfter:              now.Add(12 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return SelfSigned{
		TLS: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
}

// OfferSTARTTLS makes the server offer STARTTLS with cert; logins are
// then offered only once the connection is encrypted, as a careful
// relay does.
func OfferSTARTTLS(cert SelfSigned) Option {
	return func(s *Server) { s.cert = &cert }
}
