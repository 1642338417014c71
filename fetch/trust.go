package fetch

import (
	"context"
	"net/http"
	"time"
)

// Which validators are trusted, and what a server has shown about them.
//
// Servers lie in both directions: some answer a conditional GET in full
// (ignoring it), some keep a validator fixed while the feed changes (a
// template's Last-Modified, an ETag that never changes). A validator
// that stayed the same while the body changed (by its hash) is never
// trusted again for the feed (domain.Distrust): it is neither sent back
// nor compared. The ETag is judged before Last-Modified, as HTTP does:
// where a trusted ETag is there, it alone decides; Last-Modified only
// where there is none. With no validator left to trust every poll is a
// plain GET, and the feed loses nothing to a validator that lies.

// MaxValidator is the length of the longest ETag or Last-Modified kept and
// sent back: no server needs more, and sent back, a longer one exceeds
// common request-header limits (nginx's 8 KB) and is refused forever.
const MaxValidator = 1024

// ConfirmEvery is the longest a feed is left on HEADs alone: the first
// poll after it is a GET, which confirms (or corrects) what they said.
const ConfirmEvery = 7 * 24 * time.Hour

// sentETag is the ETag a conditional request carries: the stored one,
// while it is trusted.
func (r Request) sentETag() string {
	if r.Distrust.ETag || r.Distrust.Conditional || len(r.ETag) > MaxValidator {
		return ""
	}
	return r.ETag
}

// sentLastModified is the Last-Modified a conditional request carries:
// the stored one, while it is trusted.
func (r Request) sentLastModified() string {
	if r.Distrust.LastModified || r.Distrust.Conditional || len(r.LastModified) > MaxValidator {
		return ""
	}
	return r.LastModified
}

// Conditional says whether a poll's requests carry validators: a trusted
// one is stored.
func (r Request) Conditional() bool { return r.sentETag() != "" || r.sentLastModified() != "" }

// confirmed says whether a HEAD may end the poll at now: a GET had an
// answer less than ConfirmEvery ago.
func (r Request) confirmed(now time.Time) bool {
	return !r.LastGet.IsZero() && now.Sub(r.LastGet) < ConfirmEvery
}

// sameByTrusted compares an answer's validators with the trusted ones
// stored, as HTTP does: by the ETag where one is trusted and the answer
// has one, else by Last-Modified. tells is false when no trusted
// validator is there to compare.
func (r Request) sameByTrusted(etag, lastModified string) (same, tells bool) {
	if e := r.sentETag(); e != "" && etag != "" {
		return etag == e, true
	}
	if lm := r.sentLastModified(); lm != "" && lastModified != "" {
		return lastModified == lm, true
	}
	return false, false
}

// judge learns from a full answer (200) to a GET with body hash what
// the server's validators are worth. A validator that came back the same
// while the body changed is distrusted for good, each on its own. The
// stored body again, to a conditional GET whose trusted validator did not
// change, shows that the server ignores conditional GETs; one whose
// validator changed was right to send the body.
func (res *Result) judge(req Request, h http.Header, hash string) {
	if req.BodyHash == "" {
		return // nothing to compare: a first poll
	}
	etag, lm := h.Get("ETag"), h.Get("Last-Modified")
	if hash != req.BodyHash {
		if req.ETag != "" && etag == req.ETag {
			res.Distrust.ETag = true
		}
		if req.LastModified != "" && lm == req.LastModified {
			res.Distrust.LastModified = true
		}
		return
	}
	if same, tells := req.sameByTrusted(etag, lm); req.Conditional() && (same || !tells) {
		res.IgnoresConditional = true
	}
}

// judgeHead learns from a GET that followed a HEAD's "unchanged" in the
// same poll (the confirming GET, see headPays): a body other than the
// stored one shows that the HEAD was wrong. Where the GET brings the very
// trusted validator the HEAD compared, that validator lied, not the HEAD
// (judge distrusts it, and the HEAD may go on comparing another one);
// otherwise the HEAD answered from something stale, such as a cache in
// front of the origin that keeps the validators of an old body, and is
// never asked again: each "unchanged" it said would hide the feed's
// changes until the next confirming GET.
func (res *Result) judgeHead(req Request, h http.Header, hash string) {
	if req.BodyHash == "" || hash == req.BodyHash {
		return
	}
	if same, tells := req.sameByTrusted(h.Get("ETag"), h.Get("Last-Modified")); tells && same {
		return
	}
	res.RefusesHEAD = true
}

// onClock is the request as it may be sent at now: a stored Last-Modified
// later than now (kept before such dates were refused, or a clock that
// jumped) is a wrong clock, not a validator, and is forgotten (see
// keepValidators).
func (r Request) onClock(now time.Time) Request {
	if laterThan(r.LastModified, now) {
		r.LastModified = ""
	}
	return r
}

// refusesConditional says whether status answers a conditional request
// with a refusal of the request's headers: 400 Bad Request, 413 Content
// Too Large, 431 Request Header Fields Too Large.
func refusesConditional(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge ||
		status == http.StatusRequestHeaderFieldsTooLarge
}

// unconditional drops the stored validators after a conditional GET was
// refused, and makes the same GET without them. When that one is
// answered, the server has shown it takes no conditional request: none is
// sent to it again (domain.Distrust.Conditional).
func (c *Client) unconditional(ctx context.Context, req Request, now time.Time, res *Result) *fetchedBody {
	res.ETag, res.LastModified, res.ValidatorsDropped = "", "", true
	plain := req
	plain.ETag, plain.LastModified = "", ""
	body := c.download(ctx, plain, now, res, headSkipped)
	if res.Status >= 200 && res.Status < 300 && (body != nil || res.Outcome == OutcomeUnchanged) {
		res.Distrust.Conditional = true
	}
	return body
}
