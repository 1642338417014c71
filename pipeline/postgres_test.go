package pipeline

import (
	"os"
	"strings"
	"testing"

	"feeddigest/internal/pgtest"
	"feeddigest/postgres"
	"feeddigest/sqlite"
	"feeddigest/store"
)

// TestMain registers the state back ends, as the program's main does.
func TestMain(m *testing.M) {
	store.Register(postgres.Backend)
	store.Register(sqlite.Backend)
	os.Exit(pgtest.Main(m))
}

// testState is the state setting of a test's config: an SQLite file
// beside the config, or, when TestPassesOnPostgres runs the test again,
// a fresh PostgreSQL database. The test's name says which, so that the
// tests may run in parallel.
func testState(t *testing.T) string {
	if strings.HasPrefix(t.Name(), onPostgres) {
		return pgtest.NewDatabase(t)
	}
	return "state.db"
}

// onPostgres begins the names of the tests TestPassesOnPostgres runs.
const onPostgres = "TestPassesOnPostgres/"

// TestPassesOnPostgres runs the tests of whole passes once more with the
// state in PostgreSQL: a single run there behaves exactly as on SQLite.
// Left out: the SQLite lock, tested beside its own state; pure functions;
// the thirty-day run, which measures the SQLite file (EveryEntryExactly-
// OncePerSubscriber runs a week of hourly passes here).
func TestPassesOnPostgres(t *testing.T) {
	pgtest.Require(t)
	t.Parallel()
	tests := []struct {
		name string
		test func(*testing.T)
		long bool // hundreds of passes: not under -short
	}{
		{name: "EntriesReachEverySubscriberAtTheirOwnMidnight", test: TestEntriesReachEverySubscriberAtTheirOwnMidnight},
		{name: "SchedulingThroughRuns", test: TestSchedulingThroughRuns},
		{name: "FirstDigestShowsFiveNewestPerFeed", test: TestFirstDigestShowsFiveNewestPerFeed},
		{name: "EveryEntryExactlyOncePerSubscriber", test: TestEveryEntryExactlyOncePerSubscriber, long: true},
		{name: "BrokenFeedBesideGoodOnes", test: TestBrokenFeedBesideGoodOnes},
		{name: "GoneFeedNoticedOnceAndNeverPolledAgain", test: TestGoneFeedNoticedOnceAndNeverPolledAgain},
		{name: "FeedOfADeadRunIsReadAgainLast", test: TestFeedOfADeadRunIsReadAgainLast},
		{name: "FeedCutShortTwiceWaitsOutAPenalty", test: TestFeedCutShortTwiceWaitsOutAPenalty},
		{name: "InterruptedPassLeavesNoMarks", test: TestInterruptedPassLeavesNoMarks},
		{name: "BacklogNeverFloodsALaterDigest", test: TestBacklogNeverFloodsALaterDigest},
		{name: "BacklogOfAFeedThatFailedAtFirst", test: TestBacklogOfAFeedThatFailedAtFirst},
		{name: "BrokenFeedIsPolledConditionally", test: TestBrokenFeedIsPolledConditionally},
		{name: "DigestListsAFewEntriesPerFeedAndSaysHowManyMore", test: TestDigestListsAFewEntriesPerFeedAndSaysHowManyMore},
		{name: "FeedMovedAsItWasMovesAtOnce", test: TestFeedMovedAsItWasMovesAtOnce},
		{name: "PermanentRedirectUpdatesTheSubscription", test: TestPermanentRedirectUpdatesTheSubscription},
		{name: "FailedFeedIsRetriedBetweenMidnights", test: TestFailedFeedIsRetriedBetweenMidnights},
		{name: "HostileFeedsCannotHurtTheRun", test: TestHostileFeedsCannotHurtTheRun},
		{name: "DiscoveredFeedIsRemembered", test: TestDiscoveredFeedIsRemembered},
		{name: "LearnedServerFactsPersist", test: TestLearnedServerFactsPersist},
		{name: "PublisherHintDefersThePoll", test: TestPublisherHintDefersThePoll},
		{name: "ConcurrencyBoundsRequestsInFlight", test: TestConcurrencyBoundsRequestsInFlight},
		{name: "RepairedFeedIsReadAndShown", test: TestRepairedFeedIsReadAndShown},
		{name: "OneRequestPerPollOnCompliantFeeds", test: TestOneRequestPerPollOnCompliantFeeds, long: true},
		{name: "HeadFirstWhereConditionalGETsAreIgnored", test: TestHeadFirstWhereConditionalGETsAreIgnored},
		{name: "RunSendsDigestOverSMTP", test: TestRunSendsDigestOverSMTP},
		{name: "RunRetriesSendAfterServerDown", test: TestRunRetriesSendAfterServerDown},
		{name: "RetriedSendKeepsMessageID", test: TestRetriedSendKeepsMessageID},
		{name: "PassingSendFailuresBackOff", test: TestPassingSendFailuresBackOff},
		{name: "IdlePassLeavesTheSiteAsItWas", test: TestIdlePassLeavesTheSiteAsItWas},
		{name: "WeeklyUserOverThreeWeeks", test: TestWeeklyUserOverThreeWeeks, long: true},
		{name: "StatusShowsRhythmAndNextDigest", test: TestStatusShowsRhythmAndNextDigest},
		{name: "TurningWeeklyMidWeek", test: TestTurningWeeklyMidWeek},
		{name: "PublishWritesTheSiteTheRunsWrote", test: TestPublishWritesTheSiteTheRunsWrote},
		{name: "FeedThatAnswers404IsNamedEveryDay", test: TestFeedThatAnswers404IsNamedEveryDay},
		{name: "FeedNeverReadIsNamedByItsAddress", test: TestFeedNeverReadIsNamedByItsAddress},
		{name: "FailedFeedsAreRecordedInTheDigest", test: TestFailedFeedsAreRecordedInTheDigest},
		{name: "FeedLanguageReachesThePage", test: TestFeedLanguageReachesThePage},
		{name: "DigestPagesLinkTheirNeighbours", test: TestDigestPagesLinkTheirNeighbours},
		{name: "DigestFollowsTheUsersOrderFoldersAndTitles", test: TestDigestFollowsTheUsersOrderFoldersAndTitles},
		{name: "SkipEmptyMailsOnlyDaysWithSomethingToSay", test: TestSkipEmptyMailsOnlyDaysWithSomethingToSay},
		{name: "QuietDayMailedByDefault", test: TestQuietDayMailedByDefault},
		{name: "WeeklyDigestSubjectNamesTheWeek", test: TestWeeklyDigestSubjectNamesTheWeek},
		{name: "FragmentsMadeWhenStoredAndAgainUnderOtherRules", test: TestFragmentsMadeWhenStoredAndAgainUnderOtherRules},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && testing.Short() {
				t.Skip("hundreds of passes: runs without -short")
			}
			t.Parallel() // each in a database of its own
			tt.test(t)
		})
	}
}
