#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Corrupted FPDUs on an established softrnic connection. A raw TCP peer
# (Python, below) does the MPA revision 1 exchange with CRC against an rping
# server on softrnic, then sends one bad FPDU; softrnic must answer with a
# TERMINATE carrying the right layer/etype/ecode and close (FIN or RST),
# the server's QP goes to error, and afterwards a good rping on the same
# device still works, with no CM id left.
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"

cat >/tmp/badpeer.py <<'PY'
import socket, struct, sys

def crc32c(data, crc=0xffffffff):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xffffffff

def fpdu(ulpdu, good_crc=True):
    f = struct.pack('!H', len(ulpdu)) + ulpdu
    f += b'\0' * ((4 - len(f) % 4) % 4)
    c = crc32c(f)
    if not good_crc:
        c ^= 1
    return f + struct.pack('<I', c)

def untagged(ddp, ctrl, qn, msn, mo, data=b'', word=0):
    return bytes([ddp, ctrl]) + struct.pack('!IIII', word, qn, msn, mo) + data

CASES = {
    # name: (bytes on the wire, expected (layer, etype, ecode))
    'bad-crc': (fpdu(untagged(0x41, 0x43, 0, 1, 0, b'x' * 16), False), (2, 0, 2)),
    'ddp-version': (fpdu(untagged(0x42, 0x43, 0, 1, 0, b'x' * 16)), (1, 2, 6)),
    'ddp-qn': (fpdu(untagged(0x41, 0x43, 7, 1, 0, b'x' * 16)), (1, 2, 1)),
    'rdmap-version': (fpdu(untagged(0x41, 0x83, 0, 1, 0, b'x' * 16)), (0, 2, 5)),
    'rdmap-opcode': (fpdu(untagged(0x41, 0x4c, 0, 1, 0, b'x' * 16)), (0, 2, 6)),
    'msn': (fpdu(untagged(0x41, 0x43, 0, 9, 0, b'x' * 16)), (1, 2, 3)),
    'send-too-long': (fpdu(untagged(0x41, 0x43, 0, 1, 0, b'x' * 4000)), (1, 2, 5)),
    'write-bad-stag': (fpdu(bytes([0xc1, 0x40]) + struct.pack('!IQ', 0x7fffff00, 0) + b'y' * 32),
                       (1, 1, 0)),
    'read-bad-stag': (fpdu(untagged(0x41, 0x41, 1, 1, 0,
                                    struct.pack('!IQIIQ', 0, 0, 64, 0x7fffff00, 0))), (0, 1, 0)),
    'short-ulpdu': (struct.pack('!H', 6) + b'\0' * 10, (1, 0, 0)),
}

def recv_exact(s, n):
    b = b''
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError('EOF after %d of %d octets' % (len(b), n))
        b += c
    return b

name, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
wire, want = CASES[name]
s = socket.create_connection((addr, port), timeout=10)
s.sendall(b'MPA ID Req Frame' + bytes([0x40, 1]) + struct.pack('!H', 0))
rep = recv_exact(s, 20)
assert rep[:16] == b'MPA ID Rep Frame', rep
assert not rep[16] & 0x20, 'rejected'
assert rep[16] & 0x40, 'no CRC in the reply'
recv_exact(s, struct.unpack('!H', rep[18:20])[0])
s.sendall(wire)
hdr = recv_exact(s, 2)
ulen = struct.unpack('!H', hdr)[0]
rest = recv_exact(s, ulen + (4 - (ulen + 2) % 4) % 4 + 4)
ulpdu = rest[:ulen]
frame = hdr + rest[:-4]
assert struct.unpack('<I', rest[-4:])[0] == crc32c(frame), 'TERMINATE with a bad CRC'
assert ulpdu[1] & 0x0f == 7 and ulpdu[0] & 0x80 == 0, 'not a TERMINATE: %s' % ulpdu.hex()
assert struct.unpack('!I', ulpdu[6:10])[0] == 2, 'TERMINATE not on QN 2'
word = struct.unpack('!I', ulpdu[18:22])[0]
got = (word >> 28, (word >> 24) & 0xf, (word >> 16) & 0xff)
assert got == want, 'TERMINATE %s, want %s' % (got, want)
try:
    while s.recv(4096):
        pass
except ConnectionResetError:
    pass
print('ok %s: TERMINATE layer %d etype %d ecode %d, then closed' % ((name,) + got))
PY

sr_data_pair softrnic siw
port=7700
for c in bad-crc ddp-version ddp-qn rdmap-version rdmap-opcode msn send-too-long \
	write-bad-stag read-bad-stag short-ulpdu; do
	bg "/tmp/bad-$c-server.log" ip netns exec "$NS_A" rping -s -v -a "$ADDR_A" -p $port -C 1
	server=$LAST_PID
	wait_for 10 "rping server on softrnic" cm_id_listening $port
	rc=0
	run_to "/tmp/bad-$c.log" "$STEP" ip netns exec "$NS_B" python3 /tmp/badpeer.py \
		"$c" "$ADDR_A" $port || rc=$?
	src=0
	wait_pid "$server" "$STEP" || src=$?
	[ "$rc" -eq 0 ] || { show "/tmp/bad-$c-server.log"; fail "$c: the raw peer saw no proper TERMINATE"; }
	[ "$src" -ne 124 ] || fail "$c: the rping server hung after the TERMINATE"
	wait_for 10 "no CM id left after $c" cm_ids_empty
	port=$((port + 1))
done
# nothing else hurt: a good connection on the same device
rping_pair after-bad "$NS_A" "$ADDR_A" "$NS_B" "$ADDR_A" $port
say "ok: every corrupted FPDU got its TERMINATE, the device still serves"
