#!/usr/bin/env python3
"""Counts Kafka requests a broker received, by API and by client connection, from an strace of the broker:
  strace -f -qq -ttt -s 40 -xx -e trace=recvfrom,sendto -p BROKER_PID -o FILE
  kafka-requests.py FILE SECONDS [FDMAP]   (FDMAP: lines "fd name", from ss)
Tansu reads each request as recvfrom(fd, 4 bytes length) then recvfrom(fd, body); the body starts with
api_key (int16), api_version (int16), correlation id (int32), client id (int16 length + bytes)."""
import re, sys, collections
API = {0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit", 9: "OffsetFetch",
       10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup",
       15: "DescribeGroups", 18: "ApiVersions", 19: "CreateTopics", 22: "InitProducerId", 32: "DescribeConfigs",
       36: "SaslAuthenticate", 60: "DescribeCluster", 71: "GetTelemetrySubscriptions"}
path, seconds = sys.argv[1], float(sys.argv[2])
fdmap = {}
if len(sys.argv) > 3:
    for line in open(sys.argv[3]):
        fd, name = line.split(None, 1)
        fdmap[int(fd)] = name.strip()
pending = {}
by_api = collections.Counter(); by_fd_api = collections.Counter(); fetch_wait = {}
line_re = re.compile(r'^(\d+) [\d.]+ (?:recvfrom\((\d+), (.*)|<\.\.\. recvfrom resumed>(.*))$')
def body(tid, fd, rest):
    m = re.match(r'"((?:\\x[0-9a-f]{2})*)"(?:\.\.\.)?, (\d+), .*= (\d+)$', rest)
    if not m: return
    data = bytes.fromhex(m.group(1).replace('\\x', ''))
    if int(m.group(3)) <= 4 or len(data) < 10: return
    api = int.from_bytes(data[0:2], 'big'); ver = int.from_bytes(data[2:4], 'big')
    clen = int.from_bytes(data[8:10], 'big', signed=True)
    client = data[10:10 + clen].decode(errors='replace') if clen > 0 else '-'
    name = API.get(api, str(api))
    by_api[name] += 1
    by_fd_api[(fd, client, name)] += 1
for line in open(path):
    m = line_re.match(line.rstrip('\n'))
    if not m: continue
    tid = m.group(1)
    if m.group(2):
        fd = int(m.group(2)); rest = m.group(3)
        if rest.endswith('<unfinished ...>'): pending[tid] = fd; continue
        body(tid, fd, rest)
    else:
        fd = pending.pop(tid, None)
        if fd is not None: body(tid, fd, m.group(4).strip())
print(f"requests per second over {seconds:g} s, by API:")
for name, n in by_api.most_common(): print(f"  {name:16s} {n/seconds:8.1f}/s  ({n})")
print(f"  {'total':16s} {sum(by_api.values())/seconds:8.1f}/s")
print("by connection (fd, client.id, mapped owner):")
conns = collections.defaultdict(dict)
for (fd, client, name), n in by_fd_api.items(): conns[(fd, client)][name] = n
for (fd, client), apis in sorted(conns.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    desc = ", ".join(f"{k} {v/seconds:.1f}/s" for k, v in sorted(apis.items(), key=lambda kv: -kv[1]))
    print(f"  fd {fd:3d} {client:8s} {fdmap.get(fd, ''):28s} {desc}")
