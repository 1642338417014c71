package domain

import "time"

// ProblemCode is why a feed could not be read, as the state keeps it: a
// kind and the facts its words need, never the words themselves. A page
// or an email words it when it is written, in its reader's language of
// that moment (package render, through the locale catalogues), so a page
// rebuilt after the reader changed language says it in the new one.
//
// The zero ProblemCode is no code: a feed that never failed, or a
// problem kept by an older version as words only (Feed.Problem,
// Problem.Reason), which is then shown as it was kept.
type ProblemCode struct {
	Kind ProblemKind `json:"kind"`
	// Status is the HTTP status of ProblemHTTP.
	Status int `json:"status,omitempty"`
	// Host is the server a network failure was with, as the feed's URL
	// names it (with its port when the URL has one), or the name a DNS
	// lookup failed for; "" when the error did not say.
	Host string `json:"host,omitempty"`
	// Expired is when an expired certificate stopped being valid
	// (ProblemCertExpired); Names the names a certificate for other
	// hosts is for (ProblemCertHost), comma-separated (a string, so that
	// a feed record stays comparable).
	Expired time.Time `json:"expired,omitzero"`
	Names   string    `json:"names,omitempty"`
	// Detail is the innermost error's own text where no kind says more
	// (ProblemTLS, ProblemNetwork): kept as a fact for the operator,
	// never shown to a digest's reader in place of words.
	Detail string `json:"detail,omitempty"`
}

// IsZero says there is no code (see ProblemCode).
func (c ProblemCode) IsZero() bool { return c.Kind == "" }

// ProblemKind names what went wrong. Its values are kept in the state:
// never change one, add new ones. The network kinds are those of package
// fetch's classification of network failures (fetch.NetKind), spelled
// the same.
type ProblemKind string

const (
	ProblemHTTP             ProblemKind = "http"               // an HTTP status that is not success: Status
	ProblemRunDied          ProblemKind = "run-died"           // runs reading the feed died, twice in a row
	ProblemPrivateAddress   ProblemKind = "private-address"    // refused: the host resolves to a private address
	ProblemTooLarge         ProblemKind = "too-large"          // the body or its tree is over the limits
	ProblemTooManyRedirects ProblemKind = "too-many-redirects" // a redirect chain too long, or a loop
	ProblemNotFeed          ProblemKind = "not-a-feed"         // a body that is not a usable feed
	ProblemUnreadable       ProblemKind = "unreadable"         // none of the others

	// Network failures: Host, and the facts each says.
	ProblemUnknownHost ProblemKind = "unknown-host" // the DNS lookup of Host failed
	ProblemRefused     ProblemKind = "refused"      // nothing listens at the address
	ProblemClosed      ProblemKind = "closed"       // reset or closed before any answer came
	ProblemCut         ProblemKind = "cut"          // reset or closed while the body was read
	ProblemTimeout     ProblemKind = "timeout"      // no answer (or no end of it) in time
	ProblemUnreachable ProblemKind = "unreachable"  // no route to the host or its network
	ProblemCertUnknown ProblemKind = "cert-unknown" // a certificate no trusted authority signed
	ProblemCertExpired ProblemKind = "cert-expired" // a certificate out of its dates: Expired
	ProblemCertHost    ProblemKind = "cert-host"    // a certificate for other names: Names
	ProblemTLS         ProblemKind = "tls"          // another failure of the TLS handshake: Detail
	ProblemNetwork     ProblemKind = "network"      // another network failure: Detail
)

// HTTPProblem is the code of an HTTP status that is not success.
func HTTPProblem(status int) ProblemCode { return ProblemCode{Kind: ProblemHTTP, Status: status} }
