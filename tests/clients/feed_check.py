"""Checks a live server's iCalendar feed with real consumers: the `icalendar`
package parses it, every event's instants are compared with the JSON API's, and a
Radicale CalDAV server stores the feed and gives every event back.

Usage: python3 feed_check.py SITE_URL QUERY
Exits non-zero with a message on the first difference."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import date, datetime, timezone

import icalendar

site, query = sys.argv[1], sys.argv[2]
api = f"{site}/calendar/events/v1/events"


def fetch(url, method="GET", body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.status, resp.headers, resp.read()


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def utc(text):
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)


status, headers, feed = fetch(f"{api}?ical=1&{query}")
if not headers["Content-Type"].startswith("text/calendar"):
    fail(f"content type {headers['Content-Type']}")
calendar = icalendar.Calendar.from_ical(feed)
events = {str(e["UID"]): e for e in calendar.walk("VEVENT")}
zones = {str(z["TZID"]) for z in calendar.walk("VTIMEZONE")}

status, _, body = fetch(f"{api}?{query}&per_page=50")
listed = json.loads(body)["events"]
if len(listed) != len(events):
    fail(f"{len(events)} events in the feed, {len(listed)} in the list")
host = site.split("://", 1)[1].split("/", 1)[0].split(":", 1)[0]
for item in listed:
    uid = f"{item['id']}@{host}"
    if uid not in events:
        fail(f"{uid} missing from the feed")
    e = events[uid]
    if str(e["SUMMARY"]) != item["title"]:
        fail(f"summary {e['SUMMARY']!r} != title {item['title']!r}")
    start, end = e.decoded("DTSTART"), e.decoded("DTEND")
    if item["all_day"]:
        if isinstance(start, datetime) or start != date.fromisoformat(item["start_date"][:10]):
            fail(f"{uid}: all-day start {start!r} for {item['start_date']}")
        continue
    if start.tzinfo is None:
        fail(f"{uid}: floating start {start!r}")
    if start.astimezone(timezone.utc) != utc(item["utc_start_date"]):
        fail(f"{uid}: start {start.isoformat()} is not {item['utc_start_date']} UTC")
    if end.astimezone(timezone.utc) != utc(item["utc_end_date"]):
        fail(f"{uid}: end {end.isoformat()} is not {item['utc_end_date']} UTC")
    tzid = e["DTSTART"].params.get("TZID")
    if tzid is not None and tzid not in zones:
        fail(f"{uid}: TZID {tzid} has no VTIMEZONE")

# A real calendar server as the consumer: upload the feed, read it back over CalDAV.
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
storage = tempfile.mkdtemp()
radicale = subprocess.Popen(
    [sys.executable, "-m", "radicale", "--server-hosts", f"127.0.0.1:{port}",
     "--auth-type", "none", "--storage-filesystem-folder", storage,
     "--logging-level", "error"],
    stderr=subprocess.DEVNULL,
)
try:
    dav = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            fetch(f"{dav}/.well-known/caldav")
            break
        except Exception:
            time.sleep(0.1)
    fetch(f"{dav}/tester/", "MKCOL")
    collection = f"{dav}/tester/feed/"
    fetch(collection, "PUT", feed, {"Content-Type": "text/calendar; charset=utf-8"})
    report = b"""<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:prop><C:calendar-data/></D:prop>
  <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/></C:comp-filter></C:filter>
</C:calendar-query>"""
    status, _, answer = fetch(collection, "REPORT", report,
                              {"Content-Type": "application/xml", "Depth": "1"})
    if status != 207:
        fail(f"REPORT answered {status}")
    import xml.etree.ElementTree as ET
    tree = ET.fromstring(answer)
    stored = {}
    for data in tree.iter("{urn:ietf:params:xml:ns:caldav}calendar-data"):
        for e in icalendar.Calendar.from_ical(data.text).walk("VEVENT"):
            stored[str(e["UID"])] = e
    if set(stored) != set(events):
        fail(f"Radicale holds {sorted(stored)}, the feed {sorted(events)}")
    for uid, e in events.items():
        back = stored[uid]
        if back.decoded("DTSTART") != e.decoded("DTSTART") or back.decoded("DTEND") != e.decoded("DTEND"):
            fail(f"{uid}: Radicale gives {back.decoded('DTSTART')!r}, the feed {e.decoded('DTSTART')!r}")
        if str(back["SUMMARY"]) != str(e["SUMMARY"]):
            fail(f"{uid}: summary changed in Radicale")
finally:
    radicale.terminate()
    radicale.wait(timeout=10)

print(f"ok: {len(events)} events, zones {sorted(zones)}, stored and read back by Radicale")
