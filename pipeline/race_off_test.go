//go:build !race

package pipeline

// raceDetector: see race_on_test.go.
const raceDetector = false
