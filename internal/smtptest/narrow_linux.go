package smtptest

import "syscall"

// narrowWindow sets, on the listening socket (its connections inherit
// them), a small receive buffer and a small segment size: the window a
// client may fill without the server reading stays a few kilobytes,
// and the client's send buffer, which grows with the segment size,
// stays small too.
func narrowWindow(_, _ string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		if err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096); err != nil {
			return
		}
		err = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG, 536)
	}); cerr != nil {
		return cerr
	}
	return err
}
