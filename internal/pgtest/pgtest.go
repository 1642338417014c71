// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb
// and the postgres server from the machine's own PostgreSQL (Debian's
// postgresql package), listening on a Unix socket in a temporary folder
// and on a free 127.0.0.1 port, with a fresh database for each test. No
// mock: the tests of the PostgreSQL state talk to a real server.
//
// A package's tests share one cluster, started by the first test that
// asks for a database and stopped by TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.NewDatabase(t) // postgres://postgres@127.0.0.1:PORT/NAME?sslmode=disable
//		...
//	}
//
// When the server binaries cannot be found the test is skipped with one
// line saying how to get them, so that the tests pass on a machine with
// only Go; in CI (CI=true) it fails instead (package needs).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/internal/needs"
)

// ErrNoPostgres means the PostgreSQL server binaries were not found.
var ErrNoPostgres = errors.New("PostgreSQL's server (initdb, postgres) not found")

// BinDirEnv names the environment variable that points at the folder of
// initdb and postgres when they are somewhere unusual.
const BinDirEnv = "PG_BINDIR"

// installAdvice says how to get the binaries.
const installAdvice = "apt-get install postgresql (Debian, Ubuntu), or set " + BinDirEnv + " to the folder of initdb and postgres"

// BinDir finds the folder holding initdb and postgres: $PG_BINDIR, else
// the newest /usr/lib/postgresql/*/bin (Debian), else /usr/local/pgsql/bin,
// else the folder of an initdb on PATH.
func BinDir() (string, error) {
	has := func(dir string) bool {
		for _, prog := range []string{"initdb", "postgres"} {
			if info, err := os.Stat(filepath.Join(dir, prog)); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
				return false
			}
		}
		return true
	}
	if dir := os.Getenv(BinDirEnv); dir != "" {
		if has(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("%w in $%s (%s): %s", ErrNoPostgres, BinDirEnv, dir, installAdvice)
	}
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(debian, func(a, b string) int { return versionOf(b) - versionOf(a) }) // newest first
	candidates := append(debian, "/usr/local/pgsql/bin")
	if initdb, err := exec.LookPath("initdb"); err == nil {
		candidates = append(candidates, filepath.Dir(initdb))
	}
	for _, dir := range candidates {
		if has(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w in /usr/lib/postgresql/*/bin, /usr/local/pgsql/bin or PATH: %s", ErrNoPostgres, installAdvice)
}

// versionOf reads the major version out of /usr/lib/postgresql/15/bin.
func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	dir    string // the temporary folder: data/, the socket, the log
	port   int
	server *exec.Cmd
	exited chan struct{}
	dbs    atomic.Int64
	major  int // the server's major version: 15 for "15.14 (Debian 15.14-0+deb12u1)"
}

func majorVersion(serverVersion string) int {
	n, _ := strconv.Atoi(strings.SplitN(serverVersion, ".", 2)[0])
	return n
}

// Start initialises a cluster in a new temporary folder and starts its
// server. As root, both run as the postgres user (initdb refuses root),
// in a folder that user owns. Stop it with Stop.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	owner, err := serverUser()
	if err != nil {
		return nil, err
	}
	parent := clusterParent()
	sweepStale(parent, time.Now())
	// Short: a Unix socket path may not exceed 107 bytes.
	dir, err := os.MkdirTemp(parent, "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir}
	if owner != nil {
		if err := os.Chown(dir, int(owner.Uid), int(owner.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: hand %s to the postgres user: %w", dir, err)
		}
	}
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", c.dataDir(), "--auth=trust",
		"--username=postgres", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: owner}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	// A port just free may be taken before the server binds it: try again.
	for try := 0; ; try++ {
		err = c.startServer(ctx, bin, owner)
		if err == nil {
			return c, nil
		}
		if try == 2 {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

// serverUser is the user the server runs as: nil (this process's user)
// unless this process is root, then the postgres user Debian's package
// creates.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, the server must run as another user, and there is no postgres user (%w): %s", err, installAdvice)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// clusterParent is the folder a cluster is made in: PGTEST_DIR when set;
// else a file system in memory when there is one with room, since every
// database a test creates is hundreds of files, and on ext4 their creation
// took half the CPU of the pipeline's tests on PostgreSQL (18.7 s against
// 13.1 s on /dev/shm); else the temporary folder.
func clusterParent() string {
	if dir := os.Getenv("PGTEST_DIR"); dir != "" {
		return dir
	}
	if dir := ramDir(); dir != "" {
		return dir
	}
	return os.TempDir()
}

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

// ServerPID is the process ID of the cluster's server (postmaster): the
// leader of a process group holding every backend, for benchmarks that
// measure the server's CPU time.
func (c *Cluster) ServerPID() int { return c.server.Process.Pid }

func (c *Cluster) startServer(ctx context.Context, bin string, owner *syscall.Credential) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	// PGTEST_LOG keeps the server's log where it says, beyond the
	// cluster's life: e.g. for auto_explain's plans.
	logPath := filepath.Join(c.dir, "server.log")
	if p := os.Getenv("PGTEST_LOG"); p != "" {
		logPath = p
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// fsync off: a throwaway cluster needs no durability against power
	// loss, and kill -9 of a client loses nothing committed either way.
	server := exec.Command(filepath.Join(bin, "postgres"), "-D", c.dataDir(), "-p", strconv.Itoa(port),
		"-k", c.dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=300")
	// PGTEST_PRELOAD loads server libraries, for measuring: e.g.
	// pg_stat_statements for a benchmark that reports its statements.
	if libs := os.Getenv("PGTEST_PRELOAD"); libs != "" {
		server.Args = append(server.Args, "-c", "shared_preload_libraries="+libs)
	}
	// PGTEST_SETTINGS sets more server settings, for measuring: e.g.
	// "auto_explain.log_min_duration=5ms auto_explain.log_analyze=on".
	for _, setting := range strings.Fields(os.Getenv("PGTEST_SETTINGS")) {
		server.Args = append(server.Args, "-c", setting)
	}
	server.Stdout, server.Stderr = logFile, logFile
	// The server dies with the test binary, even when that is killed:
	// SIGQUIT is PostgreSQL's immediate shutdown.
	server.SysProcAttr = &syscall.SysProcAttr{Credential: owner, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := server.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	c.server, c.port = server, port
	c.exited = make(chan struct{})
	go func() { server.Wait(); close(c.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			c.major = majorVersion(conn.PgConn().ParameterStatus("server_version"))
			conn.Close(ctx)
			return nil
		}
		select {
		case <-c.exited:
			log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
			return fmt.Errorf("pgtest: postgres exited at start: %s", log)
		case <-ctx.Done():
			c.stopServer()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.stopServer()
			return fmt.Errorf("pgtest: postgres did not accept connections within 30s: %w", err)
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL is the connection URL of database name, over TCP on 127.0.0.1.
func (c *Cluster) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// SocketURL is the connection URL of database name over the Unix socket.
func (c *Cluster) SocketURL(name string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&port=%d", name, c.dir, c.port)
}

// CreateDatabase creates a new, empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context, prefix string) (string, error) {
	name := fmt.Sprintf("%s_%d", sanitize(prefix), c.dbs.Add(1))
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// CopyDatabase creates a new database as a copy of the one named from
// (CREATE DATABASE ... TEMPLATE: a file copy, far faster than filling it
// again), and returns its URL. Nobody may be connected to from meanwhile.
// From PostgreSQL 15 on, whose default strategy writes every page of the
// copy to the WAL, it asks for the file copy: a copy of a database with
// feeddigest's schema took 0.1-0.3 s instead of 0.4-1 s.
func (c *Cluster) CopyDatabase(ctx context.Context, from, prefix string) (string, error) {
	name := fmt.Sprintf("%s_%d", sanitize(prefix), c.dbs.Add(1))
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	create := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{from}.Sanitize()
	if c.major >= 15 {
		create += " STRATEGY FILE_COPY"
	}
	if _, err := conn.Exec(ctx, create); err != nil {
		return "", fmt.Errorf("pgtest: copy database %s into %s: %w", from, name, err)
	}
	return c.URL(name), nil
}

// DatabaseName is the name of the database a URL of this package names.
func DatabaseName(url string) string {
	name := url[strings.LastIndex(url, "/")+1:]
	if i := strings.Index(name, "?"); i >= 0 {
		name = name[:i]
	}
	return name
}

// sanitize makes a database name of a test name: lower case letters,
// digits and underscores, short.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return "t_" + b.String()
}

// Stop shuts the server down and removes its folder.
func (c *Cluster) Stop() error {
	c.stopServer()
	return os.RemoveAll(c.dir)
}

func (c *Cluster) stopServer() {
	if c.server == nil || c.server.Process == nil {
		return
	}
	c.server.Process.Signal(syscall.SIGINT) // fast shutdown: disconnect clients, stop
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.server.Process.Kill()
		<-c.exited
	}
}

// The package's shared cluster, started on first use.
var (
	shared    *Cluster
	sharedErr error
	sharedMu  sync.Mutex
)

// Shared returns the cluster the package's tests share, starting it on
// first use. Main stops it.
func Shared(ctx context.Context) (*Cluster, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = Start(ctx)
	}
	return shared, sharedErr
}

// Main runs the package's tests and stops the shared cluster, if one was
// started: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stop the cluster: %v\n", err)
		}
		shared = nil
	}
	return code
}

// Require returns the shared cluster, or ends the test. Missing binaries
// skip it with one line saying how to get them, except in CI (CI=true),
// where a skip would pass the PostgreSQL state untested (needs.Missing);
// a cluster that does not start fails it.
func Require(t testing.TB) *Cluster {
	t.Helper()
	c, err := Shared(context.Background())
	if errors.Is(err, ErrNoPostgres) {
		needs.Missing(t, err.Error())
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// NewDatabase creates an empty database on the shared cluster for this
// test and returns its URL.
func NewDatabase(t testing.TB) string {
	t.Helper()
	c := Require(t)
	url, err := c.CreateDatabase(context.Background(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
