package config

import (
	"archive/zip"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"feeddigest/internal/english"
)

// zoneNames lists the IANA time zone names for suggestions. Go has no API
// that lists them (time/tzdata embeds the database but keeps its index
// private), so they are read where time.LoadLocation looks: $ZONEINFO (a
// folder or a zip), then the system folders (Debian's tzdata package is
// installed everywhere). nil when there is none.
var zoneNames = sync.OnceValue(func() []string {
	sources := []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}
	if z := os.Getenv("ZONEINFO"); z != "" {
		sources = append([]string{z}, sources...)
	}
	for _, src := range sources {
		if names := readZoneNames(src); len(names) > 0 {
			return names
		}
	}
	return nil
})

// readZoneNames lists the zones of a zoneinfo folder or zip file.
func readZoneNames(src string) []string {
	var names []string
	if r, err := zip.OpenReader(src); err == nil {
		defer r.Close()
		for _, f := range r.File {
			if isZoneName(f.Name) {
				names = append(names, f.Name)
			}
		}
		return names
	}
	filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, path)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil || rel == ".":
			return err
		case !isZoneName(rel) && d.IsDir():
			return filepath.SkipDir
		case isZoneName(rel) && !d.IsDir():
			names = append(names, rel)
		}
		return nil
	})
	return names
}

// isZoneName: each part of a zone's name starts with a capital letter,
// which leaves out posix/, right/, zone.tab, tzdata.zi and the like.
func isZoneName(name string) bool {
	for part := range strings.SplitSeq(name, "/") {
		if part == "" || part[0] < 'A' || part[0] > 'Z' {
			return false
		}
	}
	return true
}

// suggestZones returns the zones closest to a name that did not load
// (up to three): the name in another case, the zones of a city ("london",
// "new york"), or names a typo away. With no list of zones, it tries the
// names a change of case or a region makes of it.
func suggestZones(name string, zones []string) []string {
	want := strings.ToLower(strings.Join(strings.Fields(name), "_"))
	if len(zones) == 0 {
		return loadableZones(want)
	}
	found := closestZones(want, zones)
	if i := strings.LastIndexByte(want, '/'); len(found) == 0 && i >= 0 {
		found = closestZones(want[i+1:], zones) // the right city in the wrong region
	}
	return found[:min(len(found), 3)]
}

// closestZones returns the zones at the smallest edit distance from want
// (a whole name, or a city compared with the last part of each name), if
// that is small.
func closestZones(want string, zones []string) []string {
	var found []string
	best := 1 + len(want)/6
	for _, z := range zones {
		lz := strings.ToLower(z)
		if !strings.Contains(want, "/") {
			lz = lz[strings.LastIndexByte(lz, '/')+1:]
		}
		switch d := english.EditDistance(want, lz); {
		case d < best:
			best, found = d, []string{z}
		case d == best:
			found = append(found, z)
		}
	}
	slices.Sort(found)
	return found
}

func loadableZones(want string) []string {
	title := []rune(want)
	for i, r := range title {
		if i == 0 || strings.ContainsRune("/_-", title[i-1]) {
			title[i] = unicode.ToUpper(r)
		}
	}
	cands := []string{string(title)}
	if !strings.Contains(want, "/") {
		for _, region := range []string{"Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific"} {
			cands = append(cands, region+"/"+string(title))
		}
	}
	var found []string
	for _, c := range cands {
		if _, err := time.LoadLocation(c); err == nil && c != "Local" {
			found = append(found, c)
		}
	}
	return found
}

// didYouMean words suggestions: `; did you mean "A", "B" or "C"?`.
func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	last := q[len(q)-1]
	if len(q) > 1 {
		last = strings.Join(q[:len(q)-1], ", ") + " or " + last
	}
	return "; did you mean " + last + "?"
}
