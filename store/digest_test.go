package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
)

var day0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func hours(n int) time.Time { return day0.Add(time.Duration(n) * time.Hour) }

func TestArrivalWindowAgainstIntroduction(t *testing.T) {
	tests := []struct {
		name string
		sub  Subscribed
		want Arrival
	}{
		{"introduced before", Subscribed{IntroducedAt: hours(-24), HasEntries: true}, ByWindow},
		{"introduced, nothing stored", Subscribed{IntroducedAt: hours(-24)}, ByWindow},
		{"read, not introduced", Subscribed{Feed: domain.Feed{LastSuccess: hours(-1)}}, ByIntroduction},
		{"entries stored, no success on record", Subscribed{HasEntries: true}, ByIntroduction},
		{"never read", Subscribed{Feed: domain.Feed{Schedule: domain.Schedule{ErrorCount: 3}}}, Unread},
	}
	for _, tt := range tests {
		if got := tt.sub.Arrival(); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNewcomersAreNewsSinceSubscribing(t *testing.T) {
	added, firstRead := hours(0), hours(2)
	tests := []struct {
		name string
		o    Offered
		want bool
	}{
		{"first seen after the first read", Offered{FirstSeen: hours(3)}, true},
		{"in the first read, dated since subscribing", Offered{FirstSeen: hours(2), Published: hours(1)}, true},
		{"in the first read, dated before subscribing", Offered{FirstSeen: hours(2), Published: hours(-1)}, false},
		{"in the first read, dated the very time of subscribing", Offered{FirstSeen: hours(2), Published: hours(0)}, true},
		{"in the first read, dated in the future", Offered{FirstSeen: hours(2), Published: hours(5)}, false},
		{"in the first read, undated", Offered{FirstSeen: hours(2)}, false},
		{"first seen before subscribing", Offered{FirstSeen: hours(-1), Published: hours(-1)}, false},
		{"first seen as the user subscribed", Offered{FirstSeen: hours(0), Published: hours(0)}, false},
	}
	for _, tt := range tests {
		got := Newcomers([]Offered{{ID: 7, Published: tt.o.Published, FirstSeen: tt.o.FirstSeen}}, added, firstRead)
		if want := []Newcomer{{ID: 7, News: tt.want}}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, want)
		}
	}
}

func TestIntroduceShowsTheNewsAndTheNewestOfTheBacklog(t *testing.T) {
	backlog := func(ids ...int64) []Newcomer {
		var out []Newcomer
		for _, id := range ids {
			out = append(out, Newcomer{ID: id})
		}
		return out
	}
	news := func(ids ...int64) []Newcomer {
		out := backlog(ids...)
		for i := range out {
			out[i].News = true
		}
		return out
	}
	tests := []struct {
		name            string
		offered         []Newcomer
		shown, withheld []int64
	}{
		{"nothing offered", nil, nil, nil},
		{"a short backlog", backlog(1, 2, 3), []int64{1, 2, 3}, nil},
		{"a long backlog: the newest five", backlog(1, 2, 3, 4, 5, 6, 7), []int64{1, 2, 3, 4, 5}, []int64{6, 7}},
		{"news take the backlog's room", append(news(1, 2), backlog(3, 4, 5, 6, 7)...), []int64{1, 2, 3, 4, 5}, []int64{6, 7}},
		{"news beyond the limit are all shown", append(news(1, 2, 3, 4, 5, 6), backlog(7)...), []int64{1, 2, 3, 4, 5, 6}, []int64{7}},
		{"news among older backlog", append(backlog(1, 2, 3, 4), append(news(5), backlog(6)...)...), []int64{1, 2, 3, 4, 5}, []int64{6}},
	}
	for _, tt := range tests {
		shown, withheld := Introduce(tt.offered)
		if !reflect.DeepEqual(shown, tt.shown) || !reflect.DeepEqual(withheld, tt.withheld) {
			t.Errorf("%s: shown %v withheld %v, want %v and %v", tt.name, shown, withheld, tt.shown, tt.withheld)
		}
	}
}

func TestNoticesOfWhatChangedInTheWindow(t *testing.T) {
	since, now := hours(0), hours(24)
	feed := func(f domain.Feed) []Subscribed {
		f.URL = "https://a.example/feed"
		return []Subscribed{{Feed: f}}
	}
	notice := func(kind domain.NoticeKind, newURL, lastError string) []domain.Notice {
		return []domain.Notice{{FeedURL: "https://a.example/feed", Kind: kind, NewURL: newURL, LastError: lastError}}
	}
	tests := []struct {
		name  string
		subs  []Subscribed
		since time.Time
		want  []domain.Notice
	}{
		{"nothing happened", feed(domain.Feed{}), since, []domain.Notice{}},
		{"gone", feed(domain.Feed{Schedule: domain.Schedule{GoneAt: hours(3)}}), since, notice(domain.NoticeGone, "", "")},
		{"dead", feed(domain.Feed{LastError: "timeout", Schedule: domain.Schedule{DeadAt: hours(3)}}), since,
			notice(domain.NoticeDead, "", "timeout")},
		{"gone and dead: gone wins", feed(domain.Feed{Schedule: domain.Schedule{GoneAt: hours(3), DeadAt: hours(4)}}), since,
			notice(domain.NoticeGone, "", "")},
		{"gone before the window", feed(domain.Feed{Schedule: domain.Schedule{GoneAt: hours(-1)}}), since, []domain.Notice{}},
		{"gone at the previous build", feed(domain.Feed{Schedule: domain.Schedule{GoneAt: since}}), since, []domain.Notice{}},
		{"gone at the build", feed(domain.Feed{Schedule: domain.Schedule{GoneAt: now}}), since, notice(domain.NoticeGone, "", "")},
		{"gone after the build", feed(domain.Feed{Schedule: domain.Schedule{GoneAt: hours(25)}}), since, []domain.Notice{}},
		{"gone long ago, first digest", feed(domain.Feed{Schedule: domain.Schedule{GoneAt: hours(-100)}}), time.Time{},
			notice(domain.NoticeGone, "", "")},
		{"moved", feed(domain.Feed{EffectiveURL: "https://b.example/feed", MovedAt: hours(2)}), since,
			notice(domain.NoticeMoved, "https://b.example/feed", "")},
		{"flagged for another site", feed(domain.Feed{PendingURL: "https://c.example/feed", OriginFlagAt: hours(2)}), since,
			notice(domain.NoticeOrigin, "https://c.example/feed", "")},
		{"flag withdrawn", feed(domain.Feed{OriginFlagAt: hours(2)}), since, []domain.Notice{}},
		{"dead and moved: both told", feed(domain.Feed{EffectiveURL: "https://b.example/feed", MovedAt: hours(1),
			LastError: "x", Schedule: domain.Schedule{DeadAt: hours(2)}}), since,
			append(notice(domain.NoticeDead, "", "x"), notice(domain.NoticeMoved, "https://b.example/feed", "")...)},
	}
	for _, tt := range tests {
		if got := Notices(tt.subs, tt.since, now); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestProblemsNamedOnceThenWeekly(t *testing.T) {
	since, now := hours(0), hours(24)
	began, firstErr := hours(-48), hours(-40)
	tests := []struct {
		name string
		feed domain.Feed
		want []domain.Problem // FeedURL filled in
	}{
		{"fine", domain.Feed{LastSuccess: hours(1)}, nil},
		{"failing now, since the problem began before the previous digest: a reminder", domain.Feed{Problem: "not found (404)", ProblemAt: hours(20), ProblemSince: began,
			Schedule: domain.Schedule{ErrorCount: 3, FirstError: firstErr}},
			[]domain.Problem{{State: domain.ProblemFailing, Reason: "not found (404)", Since: began, Again: true}}},
		{"failing since an unknown time: named in full", domain.Feed{Problem: "x", Schedule: domain.Schedule{ErrorCount: 3}},
			[]domain.Problem{{State: domain.ProblemFailing, Reason: "x"}}},
		{"failing since before the previous digest, not named this week: a reminder", domain.Feed{Problem: "timed out", ProblemAt: hours(-30),
			Schedule: domain.Schedule{ErrorCount: 9, FirstError: firstErr}},
			[]domain.Problem{{State: domain.ProblemFailing, Reason: "timed out", Since: firstErr, Again: true}}},
		{"failing since before the previous digest, named this week: quiet", domain.Feed{URL: "https://named.example/feed", Problem: "timed out", ProblemAt: hours(-30),
			Schedule: domain.Schedule{ErrorCount: 9, FirstError: firstErr}},
			[]domain.Problem{{State: domain.ProblemFailing, Reason: "timed out", Since: firstErr, Quiet: true}}},
		{"failing again after a recovery: a new problem, named in full", domain.Feed{URL: "https://named.example/feed", Problem: "timed out", ProblemAt: hours(3), ProblemSince: hours(2),
			Schedule: domain.Schedule{ErrorCount: 1, FirstError: hours(2)}},
			[]domain.Problem{{State: domain.ProblemFailing, Reason: "timed out", Since: hours(2)}}},
		{"recovered in the window: nothing to say", domain.Feed{Problem: "timed out", ProblemAt: hours(2), ProblemSince: hours(1), LastSuccess: hours(5)}, nil},
		{"recovered before the window", domain.Feed{Problem: "timed out", ProblemAt: hours(-2), LastSuccess: hours(-1)}, nil},
		{"gone in the window, since the first error", domain.Feed{Problem: "gone (410)", ProblemAt: hours(3), ProblemSince: began,
			Schedule: domain.Schedule{GoneAt: hours(3), ErrorCount: 1}},
			[]domain.Problem{{State: domain.ProblemGone, Reason: "gone (410)", Since: began}}},
		{"gone at once: since it went", domain.Feed{Schedule: domain.Schedule{GoneAt: hours(3)}},
			[]domain.Problem{{State: domain.ProblemGone, Since: hours(3)}}},
		{"dead in the window", domain.Feed{Schedule: domain.Schedule{DeadAt: hours(3), ErrorCount: 400, FirstError: began}},
			[]domain.Problem{{State: domain.ProblemDead, Since: began}}},
		{"gone and dead: gone wins", domain.Feed{Schedule: domain.Schedule{GoneAt: hours(4), DeadAt: hours(3)}},
			[]domain.Problem{{State: domain.ProblemGone, Since: hours(4)}}},
		{"gone before the window, still counting errors", domain.Feed{Schedule: domain.Schedule{GoneAt: hours(-1), ErrorCount: 1}}, nil},
		{"dead before, gone in the window", domain.Feed{Schedule: domain.Schedule{GoneAt: hours(3), DeadAt: hours(-3)}},
			[]domain.Problem{{State: domain.ProblemGone, Since: hours(3)}}},
		{"a problem seen after the build", domain.Feed{Problem: "timed out", ProblemAt: hours(30)}, nil},
	}
	// The digests of the last week named one feed's problem, failing
	// since firstErr.
	named := []domain.Problem{{FeedURL: "https://named.example/feed", State: domain.ProblemFailing, Reason: "timed out", Since: firstErr}}
	for _, tt := range tests {
		if tt.feed.URL == "" {
			tt.feed.URL = "https://a.example/feed"
		}
		want := []domain.Problem{}
		for _, p := range tt.want {
			p.FeedURL = tt.feed.URL
			want = append(want, p)
		}
		if got := Problems([]Subscribed{{Feed: tt.feed}}, since, now, named); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, want)
		}
	}
}

// rows is a state for BuildDigest, in memory.
type rows struct {
	built      map[string]bool // by user and date
	last       time.Time
	subs       []Subscribed
	window     map[int64][]int64
	offered    map[int64][]Offered
	firstRead  time.Time
	introduced map[int64][]int64 // withheld, by feed introduced
	inserted   domain.Digest
	entries    []int64
	askedSince time.Time
	judged     map[int64]domain.Entry // what Judged gives, by ID
	withheld   []int64                // by Withhold
	named      []domain.Problem       // what NamedProblems gives
}

func (r *rows) DigestExists(_ context.Context, user, date string) (bool, error) {
	return r.built[user+" "+date], nil
}
func (r *rows) LastBuilt(context.Context, string) (time.Time, error) { return r.last, nil }
func (r *rows) NamedProblems(context.Context, string, time.Time) ([]domain.Problem, error) {
	return r.named, nil
}
func (r *rows) Subscribed(context.Context, string) ([]Subscribed, error) { return r.subs, nil }
func (r *rows) Window(_ context.Context, _ string, since, _ time.Time) (map[int64][]int64, error) {
	r.askedSince = since
	return r.window, nil
}
func (r *rows) Offered(_ context.Context, _ string, feedID int64, _ time.Time) ([]Offered, time.Time, error) {
	return r.offered[feedID], r.firstRead, nil
}
func (r *rows) Introduced(_ context.Context, _ string, feedID int64, _ time.Time, withheld []int64) error {
	if r.introduced == nil {
		r.introduced = map[int64][]int64{}
	}
	r.introduced[feedID] = withheld
	return nil
}
func (r *rows) InsertDigest(_ context.Context, d domain.Digest, entries []int64) error {
	r.inserted, r.entries = d, entries
	return nil
}

func (r *rows) Judged(_ context.Context, ids []int64) ([]domain.Entry, error) {
	var out []domain.Entry
	for _, id := range ids {
		out = append(out, r.judged[id])
	}
	return out, nil
}
func (r *rows) Withhold(_ context.Context, _ string, ids []int64) error {
	r.withheld = append(r.withheld, ids...)
	return nil
}

// Rules (a sieve) leave entries out when a digest is built: withheld for
// good, counted, never in the digest's entries; without a sieve no entry
// is read for them.
func TestBuildDigestSieve(t *testing.T) {
	newRows := func() *rows {
		r := &rows{
			last:   hours(-24),
			subs:   []Subscribed{{Feed: domain.Feed{ID: 1, URL: "https://a.example/feed"}, IntroducedAt: hours(-48)}},
			window: map[int64][]int64{1: {11, 12, 13}},
			judged: map[int64]domain.Entry{},
		}
		for id, title := range map[int64]string{11: "Sponsored: buy", 12: "News", 13: "sponsored too"} {
			r.judged[id] = domain.Entry{ID: id, FeedURL: "https://a.example/feed", Title: title}
		}
		return r
	}
	r := newRows()
	sponsored := func(e domain.Entry) bool { return strings.Contains(strings.ToLower(e.Title), "sponsored") }
	d, err := BuildDigest(context.Background(), r, "ada", "2026-11-21", day0, false, sponsored)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.entries, []int64{12}) || d.EntryCount != 1 || d.LeftOut != 2 || r.inserted.LeftOut != 2 {
		t.Errorf("entries %v, count %d, left out %d: want [12], 1, 2", r.entries, d.EntryCount, d.LeftOut)
	}
	if !reflect.DeepEqual(r.withheld, []int64{11, 13}) {
		t.Errorf("withheld %v, want [11 13]", r.withheld)
	}

	r = newRows()
	r.judged = nil // a read would give zero entries: none must happen
	if d, err = BuildDigest(context.Background(), r, "ada", "2026-11-21", day0, false, nil); err != nil {
		t.Fatal(err)
	}
	if len(r.entries) != 3 || d.LeftOut != 0 || r.withheld != nil {
		t.Errorf("without rules: entries %v, left out %d, withheld %v", r.entries, d.LeftOut, r.withheld)
	}
}

func TestBuildDigestTakesEachFeedAsItArrives(t *testing.T) {
	backlog := func(from int64, n int) []Offered {
		var out []Offered
		for i := range int64(n) {
			out = append(out, Offered{ID: from + i, FirstSeen: hours(-50)})
		}
		return out
	}
	r := &rows{
		last: hours(-24),
		subs: []Subscribed{ // by URL, as a back end lists them
			{Feed: domain.Feed{ID: 3, URL: "https://a.example/feed", LastSuccess: hours(-1)}, AddedAt: hours(-60)},
			{Feed: domain.Feed{ID: 1, URL: "https://b.example/feed"}, IntroducedAt: hours(-48)},
			{Feed: domain.Feed{ID: 2, URL: "https://c.example/feed", Schedule: domain.Schedule{ErrorCount: 1, GoneAt: hours(-2)}}},
			{Feed: domain.Feed{ID: 4, URL: "https://d.example/feed", Problem: "x", Schedule: domain.Schedule{ErrorCount: 2}}},
		},
		window:    map[int64][]int64{1: {11, 12}, 2: {21}},
		offered:   map[int64][]Offered{3: backlog(31, 7)},
		firstRead: hours(-50),
	}
	d, err := BuildDigest(context.Background(), r, "ada", "2026-11-21", day0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{11, 12, 31, 32, 33, 34, 35}; !reflect.DeepEqual(r.entries, want) {
		t.Errorf("entries %v, want %v (by feed ID; the unread feed none)", r.entries, want)
	}
	if want := map[int64][]int64{3: {36, 37}}; !reflect.DeepEqual(r.introduced, want) {
		t.Errorf("introduced %v, want %v", r.introduced, want)
	}
	// The feed introduced says how many older entries it left out; the
	// feed read by its window says nothing.
	if want := []domain.Backlog{{FeedURL: "https://a.example/feed", Older: 2}}; !reflect.DeepEqual(d.Backlogs, want) {
		t.Errorf("backlogs %+v, want %+v", d.Backlogs, want)
	}
	if !r.askedSince.Equal(hours(-24)) || !d.Since.Equal(hours(-24)) || !d.BuiltAt.Equal(day0) {
		t.Errorf("window from %v, since %v, built %v: want the previous build and now", r.askedSince, d.Since, d.BuiltAt)
	}
	wantNotices := []domain.Notice{{FeedURL: "https://c.example/feed", Kind: domain.NoticeGone}}
	wantProblems := []domain.Problem{
		{FeedURL: "https://c.example/feed", State: domain.ProblemGone, Since: hours(-2)},
		{FeedURL: "https://d.example/feed", State: domain.ProblemFailing, Reason: "x"},
	}
	if d.EntryCount != 7 || !d.SendWanted || d.User != "ada" || d.Date != "2026-11-21" ||
		!reflect.DeepEqual(d.Notices, wantNotices) || !reflect.DeepEqual(d.Problems, wantProblems) {
		t.Errorf("built %+v", d)
	}
	if !reflect.DeepEqual(r.inserted, d) {
		t.Errorf("wrote %+v, built %+v", r.inserted, d)
	}
}

func TestBuildDigestOnceADate(t *testing.T) {
	r := &rows{built: map[string]bool{"ada 2026-11-21": true}}
	_, err := BuildDigest(context.Background(), r, "ada", "2026-11-21", day0, false, nil)
	if !errors.Is(err, ErrDigestExists) {
		t.Fatalf("a second digest of the date: %v, want ErrDigestExists", err)
	}
	if r.inserted.User != "" {
		t.Error("a second digest of the date was written")
	}
	d, err := BuildDigest(context.Background(), &rows{}, "ada", "2026-11-21", day0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Since.IsZero() || d.Notices == nil || d.Problems == nil || d.EntryCount != 0 {
		t.Errorf("a first digest with nothing: %+v", d)
	}
}

// A feed the user lists under two addresses that land on one URL (an old
// one moved onto the other, a page and the feed it names) is one feed:
// its entries come from one subscription, those of the others are
// withheld as they come (introduced with all they offer withheld, or by
// their window), and a problem or a disappearance is said once. Feeds
// that land elsewhere are left alone.
func TestBuildDigestReadsAFeedListedTwiceOnce(t *testing.T) {
	failing := domain.Schedule{ErrorCount: 2}
	r := &rows{
		last: hours(-24),
		subs: []Subscribed{ // by URL, as a back end lists them
			{Feed: domain.Feed{ID: 5, URL: "https://coast.example/feed", Problem: "server error (503)", Schedule: failing},
				IntroducedAt: hours(-48)},
			{Feed: domain.Feed{ID: 2, URL: "https://old.example/rss", EffectiveURL: "HTTPS://Coast.example/feed",
				MovedAt: hours(-3), Problem: "server error (503)", Schedule: failing}, AddedAt: hours(-30), HasEntries: true},
			{Feed: domain.Feed{ID: 7, URL: "https://page.example/", EffectiveURL: "https://page.example/feed.xml"},
				IntroducedAt: hours(-48)},
			{Feed: domain.Feed{ID: 3, URL: "https://page.example/feed.xml"}, IntroducedAt: hours(-72)},
		},
		window:  map[int64][]int64{5: {51, 52}, 7: {71}, 3: {31}},
		offered: map[int64][]Offered{2: {{ID: 21, FirstSeen: hours(-2)}, {ID: 22, FirstSeen: hours(-2)}}},
	}
	d, err := BuildDigest(context.Background(), r, "ada", "2026-11-21", day0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{31, 51, 52}; !reflect.DeepEqual(r.entries, want) {
		t.Errorf("entries %v, want %v: each feed once, from the subscription introduced first", r.entries, want)
	}
	if want := map[int64][]int64{2: {21, 22}}; !reflect.DeepEqual(r.introduced, want) {
		t.Errorf("introduced %v, want %v (the repeat, all it offers withheld)", r.introduced, want)
	}
	if want := []int64{71}; !reflect.DeepEqual(r.withheld, want) {
		t.Errorf("withheld %v, want %v (the repeat's window)", r.withheld, want)
	}
	wantProblems := []domain.Problem{{FeedURL: "https://coast.example/feed", State: domain.ProblemFailing, Reason: "server error (503)"}}
	if !reflect.DeepEqual(d.Problems, wantProblems) {
		t.Errorf("problems %+v, want the feed named once: %+v", d.Problems, wantProblems)
	}
	wantNotices := []domain.Notice{{FeedURL: "https://old.example/rss", Kind: domain.NoticeMoved, NewURL: "HTTPS://Coast.example/feed"}}
	if !reflect.DeepEqual(d.Notices, wantNotices) {
		t.Errorf("notices %+v, want the move alone: %+v", d.Notices, wantNotices)
	}
	if d.EntryCount != 3 || d.LeftOut != 0 {
		t.Errorf("count %d, left out %d: want 3 and 0 (a repeat is not the rules' doing)", d.EntryCount, d.LeftOut)
	}
}

// Which subscription of a feed listed twice is read stays the same from
// digest to digest: the one introduced first, else one read, else the
// lowest feed ID.
func TestRepeatsKeepTheSubscriptionIntroducedFirst(t *testing.T) {
	at := func(id int64, introduced time.Time, read bool) Subscribed {
		s := Subscribed{Feed: domain.Feed{ID: id, URL: fmt.Sprintf("https://x.example/%d", id), EffectiveURL: "https://x.example/feed"},
			IntroducedAt: introduced}
		if read {
			s.Feed.LastSuccess = hours(-1)
		}
		return s
	}
	for _, c := range []struct {
		name string
		subs []Subscribed
		want map[int64]bool
	}{
		{"introduced earlier", []Subscribed{at(1, hours(-2), true), at(2, hours(-9), true)}, map[int64]bool{1: true}},
		{"introduced against not", []Subscribed{at(1, time.Time{}, true), at(2, hours(-1), true)}, map[int64]bool{1: true}},
		{"introduced together: lower ID", []Subscribed{at(4, hours(-1), true), at(3, hours(-1), true)}, map[int64]bool{4: true}},
		{"read against unread", []Subscribed{at(1, time.Time{}, false), at(2, time.Time{}, true)}, map[int64]bool{1: true}},
		{"three", []Subscribed{at(9, hours(-1), true), at(8, hours(-1), true), at(7, time.Time{}, true)}, map[int64]bool{9: true, 7: true}},
		{"apart", []Subscribed{{Feed: domain.Feed{ID: 1, URL: "https://a.example/"}}, {Feed: domain.Feed{ID: 2, URL: "https://b.example/"}}}, map[int64]bool{}},
	} {
		if got := Repeats(c.subs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: repeats %v, want %v", c.name, got, c.want)
		}
	}
}
