package postgres

import (
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A process that opens the same database many times over (a test suite,
// which runs a pass and opens its state again tens of times a test) pays
// each time for new connections: a server process started, its catalog
// caches filled, every statement parsed, planned and prepared again.
// That is most of what a short pass costs the server. KeepClosedPools
// lets such a process keep the pools of closed stores, idle, and hand
// them to the next Open or OpenReader of the same URL. The program opens
// its state once a run and keeps none (n is 0): a pool kept past the
// end of a run would only be dropped unannounced at exit.
func KeepClosedPools(n int) {
	closedPools.mu.Lock()
	closedPools.keep = n
	evicted := closedPools.trim()
	closedPools.mu.Unlock()
	closeAll(evicted)
}

// closedPools is the process's shelf of idle pools, newest last.
var closedPools shelf

type shelf struct {
	mu    sync.Mutex
	keep  int
	pools []shelved
}

type shelved struct {
	url  string
	pool *pgxpool.Pool
}

// take hands back the newest pool kept for url, or nil.
func (s *shelf) take(url string) *pgxpool.Pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.pools) - 1; i >= 0; i-- {
		if s.pools[i].url == url {
			p := s.pools[i].pool
			s.pools = append(s.pools[:i], s.pools[i+1:]...)
			return p
		}
	}
	return nil
}

// put keeps a closed store's pool, or closes it when nothing is kept.
// The oldest kept pools beyond keep are closed. A connection still out
// (a query a cancelled caller left behind) comes back to the pool when
// done, as it would to an open store's: every session-wide lock a store
// takes is given back before Close hands the pool over.
func (s *shelf) put(url string, p *pgxpool.Pool) {
	s.mu.Lock()
	if s.keep == 0 {
		s.mu.Unlock()
		p.Close()
		return
	}
	s.pools = append(s.pools, shelved{url, p})
	evicted := s.trim()
	s.mu.Unlock()
	closeAll(evicted)
}

// trim removes the oldest pools beyond keep and returns them, to be
// closed outside the lock. Under mu.
func (s *shelf) trim() []*pgxpool.Pool {
	var evicted []*pgxpool.Pool
	for len(s.pools) > s.keep {
		evicted = append(evicted, s.pools[0].pool)
		s.pools = s.pools[1:]
	}
	return evicted
}

func closeAll(pools []*pgxpool.Pool) {
	for _, p := range pools {
		p.Close()
	}
}

// CloseKeptPools closes the pools kept for url: a database that is to be
// copied (a template) or dropped must have no session open.
func CloseKeptPools(url string) {
	for p := closedPools.take(url); p != nil; p = closedPools.take(url) {
		p.Close()
	}
}
