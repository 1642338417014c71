//go:build race

package pipeline

// raceDetector says the tests were built with -race. The two month-long
// simulations skip then: they drive the SQLite driver, Go code the
// detector slows about twentyfold, through thousands of passes that the
// other tests' passes already hold to the detector, and the full test
// command runs them again without it (see longWithoutRace).
const raceDetector = true
