package smtptest

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"

	"feeddigest/internal/testcert"
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
	cert := testcert.Make(t, &x509.Certificate{
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
	})
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.Key)
	if err != nil {
		t.Fatal(err)
	}
	return SelfSigned{
		TLS: cert.TLS,
		PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.DER}),
		Key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
}

// OfferSTARTTLS makes the server offer STARTTLS with cert; logins are
// then offered only once the connection is encrypted, as a careful
// relay does.
func OfferSTARTTLS(cert SelfSigned) Option {
	return func(s *Server) { s.cert = &cert }
}
