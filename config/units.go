package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const day = 24 * time.Hour

// ParseDuration parses a duration as Go writes them ("30s", "90m", "1h30m",
// "0") or in whole days with a "d" suffix ("7d", "60d"), optionally followed
// by a Go duration ("1d12h"). A leading sign is allowed; callers check the
// range.
func ParseDuration(s string) (time.Duration, error) {
	orig := s
	s = strings.TrimSpace(s)
	bad := func() error {
		return fmt.Errorf("invalid duration %q (want e.g. \"30s\", \"90m\", \"12h\" or \"7d\")", orig)
	}
	if s == "" {
		return 0, bad()
	}
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	var d time.Duration
	if days, rest, ok := strings.Cut(s, "d"); ok {
		if days == "" || strings.Trim(days, "0123456789") != "" {
			return 0, bad()
		}
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > int64(math.MaxInt64/day) {
			return 0, fmt.Errorf("duration %q is too long", orig)
		}
		d = time.Duration(n) * day
		if rest != "" {
			if rest[0] == '-' || rest[0] == '+' {
				return 0, bad()
			}
			r, err := time.ParseDuration(rest)
			if err != nil {
				return 0, bad()
			}
			if r > math.MaxInt64-d {
				return 0, fmt.Errorf("duration %q is too long", orig)
			}
			d += r
		}
	} else {
		if s == "" || s[0] == '-' || s[0] == '+' {
			return 0, bad()
		}
		r, err := time.ParseDuration(s)
		if err != nil {
			return 0, bad()
		}
		d = r
	}
	if neg {
		d = -d
	}
	return d, nil
}

var sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)$`)

// sizeUnits are the units ParseSize accepts, case-insensitively: decimal
// (SI) units are powers of 1000, binary (IEC) units powers of 1024.
var sizeUnits = map[string]int64{
	"":    1,
	"b":   1,
	"kb":  1000,
	"mb":  1000 * 1000,
	"gb":  1000 * 1000 * 1000,
	"tb":  1000 * 1000 * 1000 * 1000,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
	"tib": 1 << 40,
}

// ParseSize parses a byte size: a plain number of bytes ("1048576"), or a
// number with a unit: B; decimal KB, MB, GB, TB (1 KB = 1000 bytes); binary
// KiB, MiB, GiB, TiB (1 KiB = 1024 bytes). Units are case-insensitive, a
// space may separate number and unit, and fractions are allowed ("1.5MB");
// the result is rounded down to whole bytes.
func ParseSize(s string) (int64, error) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("invalid size %q (want e.g. \"10MB\", \"512KiB\" or a number of bytes)", s)
	}
	mult, ok := sizeUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)", s, m[2])
	}
	if !strings.Contains(m[1], ".") {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > math.MaxInt64/mult {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	v := math.Floor(f * float64(mult))
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}

// parseStartDelay parses start_delay: "" or "0s" (no delay), one duration
// (min = max), or a range "1m-3m" (min <= max). Negative values are errors.
func parseStartDelay(s string) (lo, hi time.Duration, err error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, 0, nil
	}
	// The range separator is a "-" after the first character; a leading "-"
	// is a sign.
	a, b, isRange := t, "", false
	if i := strings.Index(t[1:], "-"); i >= 0 {
		a, b, isRange = strings.TrimSpace(t[:i+1]), strings.TrimSpace(t[i+2:]), true
	}
	lo, err = ParseDuration(a)
	if err != nil {
		return 0, 0, fmt.Errorf("invalid start delay %q (want \"0s\", a duration like \"2m\", or a range like \"1m-3m\")", s)
	}
	hi = lo
	if isRange {
		hi, err = ParseDuration(b)
		if err != nil {
			return 0, 0, fmt.Errorf("invalid start delay %q (want \"0s\", a duration like \"2m\", or a range like \"1m-3m\")", s)
		}
	}
	if lo < 0 || hi < 0 {
		return 0, 0, fmt.Errorf("start delay %q must not be negative", s)
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("start delay %q: the minimum is larger than the maximum", s)
	}
	return lo, hi, nil
}
