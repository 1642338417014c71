package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/smtptest"
)

// relay is a real exim4 started by the test on a loopback port with its
// own configuration in a temporary folder: STARTTLS offered with a
// self-signed certificate, as Debian's exim4 and postfix offer it, AUTH
// PLAIN (user "digest", password "secret") only once encrypted, mail for
// example.org delivered into one Maildir.
type relay struct {
	Port    int
	Cert    smtptest.SelfSigned
	CAFile  string // the certificate alone, for tls_ca
	Maildir string
	dir     string
}

// relayUser and relayPassword are the login the relay accepts.
const relayUser, relayPassword = "digest", "secret"

func startRelay(t *testing.T) *relay {
	t.Helper()
	exim := requireTool(t, "exim4", "exim4-daemon-light")
	dir := t.TempDir()
	r := &relay{Port: freePort(t), Cert: smtptest.NewSelfSigned(t, time.Now()), dir: dir, Maildir: filepath.Join(dir, "Maildir")}
	r.CAFile = writeFile(t, dir, "relay.pem", string(r.Cert.PEM))
	writeFile(t, dir, "relay.key", string(r.Cert.Key))
	for _, sub := range []string{"spool", "log", "Maildir"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Exim never delivers as root; as root, the test hands the folder to
	// the Debian-exim user, and delivers as it.
	deliverAs := ""
	if os.Geteuid() == 0 {
		u, err := user.Lookup("Debian-exim")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		chownAll(t, dir, uid, gid)
		if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil { // t.TempDir's parent is 0700
			t.Fatal(err)
		}
		deliverAs = "user = Debian-exim\n  group = Debian-exim\n"
	}
	conf := writeFile(t, dir, "exim.conf", fmt.Sprintf(eximConfig, dir, r.Port, deliverAs))
	// -bdf: the daemon stays in the foreground, the test's child to end.
	cmd := exec.Command(exim, "-C", conf, "-bdf", "-q1m")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	waitListening(t, r.Port, done, &out, func() string { return r.Log() })
	return r
}

// eximConfig: %[1]s the folder, %[2]d the port, %[3]s the delivery user.
const eximConfig = `primary_hostname = relay.test
spool_directory = %[1]s/spool
log_file_path = %[1]s/log/%%slog
pid_file_path = %[1]s/exim.pid
daemon_smtp_ports = %[2]d
local_interfaces = <; 127.0.0.1
tls_advertise_hosts = *
tls_certificate = %[1]s/relay.pem
tls_privatekey = %[1]s/relay.key
domainlist local_domains = example.org
acl_smtp_rcpt = check_rcpt
host_lookup =
rfc1413_hosts =

begin acl
check_rcpt:
  accept domains = +local_domains
  deny message = relay not permitted

begin routers
maildir:
  driver = accept
  domains = +local_domains
  transport = maildir

begin transports
maildir:
  driver = appendfile
  directory = %[1]s/Maildir
  maildir_format
  create_directory
  %[3]s  envelope_to_add
  return_path_add

begin retry
* * F,1h,10m

begin authenticators
plain:
  driver = plaintext
  public_name = PLAIN
  server_advertise_condition = ${if def:tls_in_cipher}
  server_condition = ${if and {{eq{$auth2}{digest}}{eq{$auth3}{secret}}}}
  server_set_id = $auth2
`

// Log is what exim logged so far: main and reject logs.
func (r *relay) Log() string {
	var b strings.Builder
	for _, name := range []string{"mainlog", "rejectlog", "paniclog"} {
		if text, err := os.ReadFile(filepath.Join(r.dir, "log", name)); err == nil {
			fmt.Fprintf(&b, "== %s\n%s", name, text)
		}
	}
	return b.String()
}

// Delivered waits for n messages in the Maildir's new/ and returns them;
// the relay delivers in a process of its own after it accepted a message.
func (r *relay) Delivered(t *testing.T, n int) [][]byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(r.Maildir, "new", "*"))
		if len(files) >= n {
			var msgs [][]byte
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				msgs = append(msgs, b)
			}
			return msgs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages delivered into %s after 30 s\n%s", len(files), n, r.Maildir, r.Log())
		}
		time.Sleep(20 * time.Millisecond) // polling a folder: there is nothing to wait on
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening waits until something accepts connections on port, or
// the starting command ends, or 30 s pass.
func waitListening(t *testing.T, port int, done <-chan error, out *bytes.Buffer, log func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the relay did not start: %v\n%s\n%s", err, out, log())
			}
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay does not listen on %d after 30 s\n%s\n%s", port, out, log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func chownAll(t *testing.T, dir string, uid, gid int) {
	t.Helper()
	err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(path, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}
