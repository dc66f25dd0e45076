#!/bin/sh
# t_ui_pipe_signals -- the browser outlives the signals around a :pipe.
# At the "press Enter" prompt after the command the terminal is in the
# shell's modes, so C-c raises SIGINT (C-\ SIGQUIT), and the browser's
# fatal handlers were back: it died.  Now it ignores them there, and Enter
# returns to a redrawn browser.  Started with SIGCHLD ignored (a parent
# that set it so), every pipe said "pipe: sh: No child processes" (the
# child was reaped before waitpid); now it runs and says "exit 0".
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
"$PTGEN" -S 256KiB -o "$tmp/t.pt" || { echo "ptgen failed"; exit 1; }
status=0
ulimit -c 0	# C-\ before the fix: no core file

# On a pty: :pipe, then the key at the prompt, then Enter.
for key in C-c 'C-\'; do
	python3 - "$PTBROWSE" "$tmp/t.pt" "$key" <<'EOF' || status=1
import os, pty, select, signal, sys, time
B, T, key = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.environ['TERM'] = 'xterm'
    os.execv(B, [B, '--no-state', '--no-mouse', T])
buf = b''
def wait_for(what, secs=10):
    global buf
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                break
        if what in buf:
            return True
    return False
gone = None
def dead():
    global gone
    if gone is None:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            gone = (os.WIFSIGNALED(st) and 'signal %d' % os.WTERMSIG(st) or
                    'exit %d' % os.WEXITSTATUS(st))
    return gone
def fail(why):
    print('FAIL: %s: %s; output ends %r' % (key, why, buf[-300:]))
    if not dead():
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    sys.exit(1)
if not wait_for(b'F1 help'):
    fail('no screen')
os.write(fd, b':pipe echo QZpiped\r')
if not wait_for(b'press Enter'):
    fail('no prompt after :pipe')
buf = b''
os.write(fd, b'\x03' if key == 'C-c' else b'\x1c')
time.sleep(1)
d = dead()
if d:
    fail('the browser died at the prompt (%s)' % d)
os.write(fd, b'\r')
if not wait_for(b"to 'echo QZpiped': exit 0"):
    fail('no redraw with the pipe\'s message after Enter')
# While a command runs the key is the command's: it ends, we live on.
buf = b''
os.write(fd, b':pipe sleep 5\r')
time.sleep(1)
os.write(fd, b'\x03' if key == 'C-c' else b'\x1c')
if not wait_for(b'press Enter', 3):
    fail('the command did not end on the key')
os.write(fd, b'\r')
if not wait_for(b"to 'sleep 5': exit 1"):
    fail('no message of the command the key ended')
os.write(fd, b':q\r')
end = time.time() + 10
while time.time() < end and not dead():
    wait_for(b'never', 0.2)
print('ok   %s at the pipe\'s prompt: alive, Enter redraws; during it: the command\'s' % key)
EOF
done

# Started with SIGCHLD ignored (--script: no prompt).
printf ':pipe true\n:save-screen %s/chld.txt\n' "$tmp" >"$tmp/chld.s"
python3 - "$PTBROWSE" "$tmp" <<'EOF' || status=1
import signal, subprocess, sys
B, d = sys.argv[1:3]
r = subprocess.run([B, '--no-state', '--script', d + '/chld.s', '--size', '100x10',
                    d + '/t.pt'], capture_output=True, timeout=60,
                   preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
scr = open(d + '/chld.txt').read() if r.returncode == 0 else ''
if "to 'true': exit 0" not in scr:
    print('FAIL: SIGCHLD ignored: exit %d, %r; screen: %s' % (r.returncode, r.stderr[-200:],
          scr.splitlines()[-1:] if scr else ''))
    sys.exit(1)
print('ok   started with SIGCHLD ignored, :pipe runs and says exit 0')
EOF
exit $status
