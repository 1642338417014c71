package pipeline

import (
	"os"
	"testing"

	"feeddigest/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// onPostgres is set while TestPassesOnPostgres runs the pipeline's tests
// again: testConfig then puts each test's state in a fresh PostgreSQL
// database instead of an SQLite file beside the config.
var onPostgres bool

// testState is the state setting of a test's config.
func testState(t *testing.T) string {
	if onPostgres {
		return pgtest.NewDatabase(t)
	}
	return "state.db"
}

// TestPassesOnPostgres runs the tests of whole passes once more with the
// state in PostgreSQL: a single run there behaves exactly as on SQLite.
// Left out: the SQLite lock, tested beside its own state; pure functions;
// the thirty-day run, which measures the SQLite file (EveryEntryExactly-
// OncePerSubscriber runs a week of hourly passes here).
func TestPassesOnPostgres(t *testing.T) {
	pgtest.Require(t)
	onPostgres = true
	defer func() { onPostgres = false }()
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
		{name: "FeedOfADeadRunWaitsOutAPenalty", test: TestFeedOfADeadRunWaitsOutAPenalty},
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
		{name: "StatusTableSaysDueAndCounts", test: TestStatusTableSaysDueAndCounts},
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
			tt.test(t)
		})
	}
}
