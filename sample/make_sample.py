#!/usr/bin/env python3
"""Generate the alfred-mem sample data set (deterministic, stdlib only).

All text here was written by hand for the alfred-mem project and is released
with it under the same license (MIT). People, companies and addresses are
fictional; every domain ends in `.example`.

Usage:  python3 make_sample.py [OUTDIR]      (default: directory of this script)

Writes mail.mbox (mboxrd, LF), receipts.json, conversations.jsonl, facts.txt.
Re-running produces byte-identical files.

NOTE: message "Photos from Osu" deliberately carries a raw 8-bit ISO-8859-1
body, so mail.mbox is NOT valid UTF-8 as a whole: read it as bytes.
"""
import base64
import json
import os
import quopri
import re
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

ME = '"Alfred User" <me@home.example>'
JANE = "Jane Tan <jane@acme.example>"
KOFI = "Kofi Mensah <kofi.mensah@work.example>"
AMA = "Ama User <ama@mail.example>"
LINA = "Lina Park <lina.park@work.example>"
TNB = "TNB eBill <ebill@tnb.example>"
LANDLORD = "Lim Wei Jie <lim.landlord@mail.example>"
DENTAL = "Senyum Dental Clinic <appointments@senyumdental.example>"

TZ = {
    "+0800": timezone(timedelta(hours=8)),
    "-0500": timezone(timedelta(hours=-5)),
    "+0000": timezone.utc,
    "+0530": timezone(timedelta(hours=5, minutes=30)),
}


def dt(s, tz):
    """'2026-01-12 09:14' + '+0800' -> aware datetime."""
    return datetime.strptime(s, "%Y-%m-%d %H:%M").replace(tzinfo=TZ[tz])


def addr_only(a):
    m = re.search(r"<([^>]+)>", a)
    return m.group(1) if m else a


def b64lines(data: bytes) -> str:
    return base64.encodebytes(data).decode("ascii")  # 76-char lines, trailing \n


def qp(text: str) -> str:
    out = quopri.encodestring(text.encode("utf-8")).decode("ascii")
    return out


def enc_b(s: str) -> str:
    return "=?UTF-8?B?" + base64.b64encode(s.encode("utf-8")).decode("ascii") + "?="


def enc_q_latin1(s: str) -> str:
    out = []
    for ch in s.encode("latin-1"):
        c = chr(ch)
        if c == " ":
            out.append("_")
        elif c.isascii() and c.isalnum():
            out.append(c)
        else:
            out.append("=%02X" % ch)
    return "=?ISO-8859-1?Q?" + "".join(out) + "?="


MESSAGES = []  # list of (envelope_sender, envelope_datetime, raw_bytes)


def add(when, tz, frm, to, subject, body, *, msgid=None, extra=(),
        ctype=None, cte=None, no_date=False, raw_body_bytes=None):
    """Append one message. `body` is the already-encoded body text (str)."""
    d = dt(when, tz)
    h = []
    if msgid is not None:
        h.append(f"Message-ID: <{msgid}>")
    if not no_date:
        h.append("Date: " + format_datetime(d))
    h.append("From: " + frm)
    h.append("To: " + to)
    h.append("Subject: " + subject)
    h.extend(extra)
    if ctype:
        h.append("MIME-Version: 1.0")
        h.append("Content-Type: " + ctype)
        if cte:
            h.append("Content-Transfer-Encoding: " + cte)
    head = ("\n".join(h) + "\n\n").encode("ascii")
    if raw_body_bytes is not None:
        b = raw_body_bytes
    else:
        b = body.encode("utf-8")
    if not b.endswith(b"\n"):
        b += b"\n"
    MESSAGES.append((addr_only(frm), d, head + b))


def plain(text):
    return text.strip("\n") + "\n"


# ---------------------------------------------------------------------------
# Messages (chronological)
# ---------------------------------------------------------------------------

add("2025-10-06 09:12", "+0800", TNB, ME,
    "Your TNB electricity bill for September 2025",
    plain("""
Dear customer,

Your electricity bill for account 1234 (Jalan Telawi, Bangsar) is ready.

  Usage this period : 478 kWh
  Amount due        : RM 164.55
  Due date          : 27 October 2025

Pay through myTNB or any post office counter.

Tenaga Nasional Berhad
"""), msgid="tnb-bill-2025-09@tnb.example",
    ctype="text/plain; charset=us-ascii", cte="7bit")

add("2025-10-14 20:30", "+0800", LANDLORD, ME,
    "Rent for November and the leaking kitchen tap",
    plain("""
Hi Alfred,

Received your October rent, thank you. About the leaking kitchen tap: my
plumber Encik Razak can come on Saturday morning around 10am. Please leave
the spare key with the guardhouse if you are out.

Regards,
Lim
"""), msgid="rent-tap-2025-10@mail.example")  # no MIME headers at all

add("2025-11-04 10:05", "+0800", JANE, ME,
    "Acme quarterly service review - October",
    plain("""
Hi Alfred,

Quick summary of the October service review for your Acme subscription:

- uptime 99.92% (one 40-minute incident on 17 Oct, root cause a DNS change)
- 6 support tickets opened, 5 closed, 1 waiting on your team
- storage usage at 71% of plan

Your current agreement ends on 31 January 2026, so I will reach out in early
January to start the renewal.

Best,
Jane Tan
Account Manager, Acme
"""), msgid="acme-review-2025-10@acme.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

DENTAL_HTML = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>Appointment reminder</title>
<style>
  body { font-family: Arial, sans-serif; color: #333; }
  .glowbanner { background: #c0ffee; padding: 12px; }
</style>
<script type="text/javascript">
  window.telemetrix = { campaign: "recall-nov", pixel: "px-5521" };
  document.write("<img src='https://track.senyumdental.example/open.gif'>");
</script>
</head>
<body>
<div class="glowbanner">Senyum Dental Clinic &amp; Orthodontics</div>
<p>Dear Alfred,</p>
<p>This is a reminder of your <b>scaling &amp; polishing</b> appointment with
Dr. Ren&eacute;e Wong on <b>Tuesday, 2 December 2025 at 4:30pm</b>.</p>
<p>Please don&#8217;t eat or drink coffee for an hour before the visit, and
bring your panel insurance card.</p>
<p>To reschedule, reply to this email or call 03-2201 4455.</p>
</body>
</html>
"""
add("2025-11-11 15:20", "+0800", DENTAL, ME,
    "Appointment reminder: scaling & polishing on 2 December",
    DENTAL_HTML, msgid="dental-reminder-2025-11@senyumdental.example",
    ctype="text/html; charset=UTF-8", cte="7bit")

OSU_TEXT = """Hi Alfred,

Some photos from Sunday. We went to the little café on Oxford Street in Osu
that Kwame likes; they now do a hibiscus iced tea called sobolo which you
must try when you come.

I was naïve to think the traffic home would be light. Two hours!

Mum says hello and asks whether you are still coming in March.

Love,
Ama
"""
add("2025-11-20 18:45", "+0000", AMA, ME, "Photos from Osu", "",
    msgid="osu-photos-2025-11@mail.example",
    ctype="text/plain; charset=ISO-8859-1", cte="8bit",
    raw_body_bytes=OSU_TEXT.encode("latin-1"))

add("2025-12-03 09:05", "+0800", TNB, ME,
    "Your TNB electricity bill for November 2025",
    plain("""
Dear customer,

Your electricity bill for account 1234 is ready.

  Usage this period : 455 kWh
  Amount due        : RM 151.20
  Due date          : 24 December 2025

Tenaga Nasional Berhad
"""), msgid="tnb-bill-2025-11@tnb.example",
    ctype="text/plain; charset=us-ascii", cte="7bit")

add("2025-12-09 11:40", "+0800", JANE, ME,
    "Acme office closure over the holidays",
    plain("""
Hi Alfred,

Acme's Kuala Lumpur office will be closed from 24 December to 1 January.
Support stays on the usual 24/7 hotline. I'm back on 5 January and will send
over the renewal paperwork then.

Happy holidays!
Jane
"""), msgid="acme-holiday-2025-12@acme.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2025-12-15 08:10", "+0000", KOFI, ME,
    "Orion: beta feedback summary",
    plain("""
Alfred,

Beta feedback for Orion is in: 34 testers, mostly positive. Top complaints:
slow CSV export, confusing onboarding wizard, and the dark-mode contrast on
the dashboard. I've logged them as ORN-211, ORN-214 and ORN-219.

Kofi
"""), msgid="orion-beta-2025-12@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

# ---- January 2026: Acme contract renewal cluster ---------------------------

add("2026-01-05 09:02", "+0800", JANE, ME,
    "Acme contract renewal 2026 - kick-off",
    plain("""
Hi Alfred,

Happy new year! Your Acme agreement expires on 31 January 2026, so let's kick
off the renewal. Our proposal is a 24-month term starting 1 February 2026.

I'll send the pricing quote this week and a redline of the master agreement.
The main open point from legal will be the termination clause.

Best,
Jane
"""), msgid="acme-renewal-kickoff@acme.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-01-07 08:30", "+0800", TNB, ME,
    "Your TNB electricity bill for December 2025",
    plain("""
Dear customer,

Your electricity bill for account 1234 is ready.

  Usage this period : 512 kWh
  Amount due        : RM 182.40
  Due date          : 28 January 2026

Higher usage than last month: the air conditioner runs longer in the
school holidays.

Tenaga Nasional Berhad
"""), msgid="tnb-bill-2025-12@tnb.example",
    ctype="text/plain; charset=us-ascii", cte="7bit")

QUOTE_TEXT = """Hi Alfred,

As promised, here is the pricing quote Q-2026-014 for the renewal:

  Platform licence, 24 months : MYR 48,600 per year
  Uplift vs 2025              : 6%
  Multi-year discount         : 4% if signed by 30 January

The quote is valid until 30 January 2026.

Jane
"""
QUOTE_HTML = """<html><body>
<p>Hi Alfred,</p>
<p>As promised, here is the pricing quote <b>Q-2026-014</b> for the renewal:</p>
<table>
<tr><td>Platform licence, 24 months</td><td>MYR 48,600 per year</td></tr>
<tr><td>Uplift vs 2025</td><td>6%</td></tr>
<tr><td>Multi-year discount</td><td>4% if signed by 30 January</td></tr>
</table>
<p>The quote is valid until 30 January 2026.</p>
<p>Jane</p>
</body></html>
"""
add("2026-01-08 14:40", "+0800", JANE, ME,
    "Acme renewal: pricing quote Q-2026-014",
    "This is a multi-part message in MIME format.\n\n"
    "--=_alt_q2026014\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 7bit\n\n"
    + QUOTE_TEXT +
    "\n--=_alt_q2026014\n"
    "Content-Type: text/html; charset=UTF-8\n"
    "Content-Transfer-Encoding: 7bit\n\n"
    + QUOTE_HTML +
    "\n--=_alt_q2026014--\n",
    msgid="acme-pricing-quote@acme.example",
    ctype='multipart/alternative; boundary="=_alt_q2026014"')

OUTAGE_TEXT = """Dear customer,

Planned power interruption notice for your area (account 1234):

  Area     : Jalan Telawi 3 and Jalan Telawi 5, Bangsar
  Date     : Saturday, 10 January 2026
  Time     : 9:00am to 3:00pm
  Reason   : replacement of a transformer at substation BGS-12

Please switch off sensitive appliances before the interruption. We apologise
for the inconvenience.

TNB Customer Care
"""
add("2026-01-09 17:00", "+0800", "TNB Customer Care <notice@tnb.example>", ME,
    "Planned power interruption in Bangsar on 10 January",
    b64lines(OUTAGE_TEXT.encode("utf-8")),
    msgid="tnb-outage-2026-01@tnb.example",
    ctype="text/plain; charset=UTF-8", cte="base64")

CLAUSE_TEXT = """Hi Alfred,

Legal has reviewed your comments on clause 7.2 (termination for convenience).
From our side, 90 days' written notice is standard, and an early termination
fee of three months' licence applies if you exit in the first year.

Could we have a call on Wednesday to close this? The signature deadline is
still 30 January.

Jane
"""
add("2026-01-12 09:14", "+0800", JANE, ME,
    "Clause 7.2 termination for convenience",
    plain(CLAUSE_TEXT), msgid="acme-clause-72@acme.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

REPLY_TEXT = ("""Hi Jane,

60 days' notice would work for us, and we can accept the fee only in the
first six months, not the full year. Wednesday 11am works for the call.

Alfred

On Mon, 12 Jan 2026 at 09:14, Jane Tan <jane@acme.example> wrote:
""" + "".join(("> " + l if l else ">") + "\n" for l in CLAUSE_TEXT.rstrip("\n").split("\n")))
add("2026-01-13 08:30", "+0800", ME, JANE,
    "Re: Clause 7.2 termination for convenience",
    REPLY_TEXT, msgid="reply-clause-72@home.example",
    extra=("In-Reply-To: <acme-clause-72@acme.example>",
           "References: <acme-clause-72@acme.example>"),
    ctype="text/plain; charset=UTF-8", cte="7bit")

INNER = """Message-ID: <legal-review-v3@legal.acme.example>
Date: Tue, 13 Jan 2026 16:45:00 -0500
From: Marcus Webb <m.webb@legal.acme.example>
To: Jane Tan <jane@acme.example>
Subject: Legal review: renewal draft v3
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 7bit

Jane,

Comments on renewal draft v3 (ref LGL-7731):

1. Indemnity cap: keep it at twelve months of fees.
2. Data residency: customer data stays in the Cyberjaya data centre.
3. Disputes: SIAC arbitration, seated in Singapore.
4. Clause 7.2: we can live with 60 days' notice if the fee stays.

Marcus
"""
add("2026-01-14 10:20", "+0800", ME, KOFI,
    "Fwd: Legal review: renewal draft v3",
    "This is a multi-part message in MIME format.\n\n"
    "--=_mixed_fwd_lgl\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 7bit\n\n"
    "Kofi, FYI: Jane shared Acme legal's comments on the renewal. Nothing\n"
    "here blocks the Orion billing module, but note the data residency point.\n"
    "\n--=_mixed_fwd_lgl\n"
    "Content-Type: message/rfc822\n"
    "Content-Disposition: inline\n\n"
    + INNER +
    "\n--=_mixed_fwd_lgl--\n",
    msgid="fwd-legal-review@home.example",
    ctype='multipart/mixed; boundary="=_mixed_fwd_lgl"')


def tiny_pdf() -> bytes:
    content = b"BT /F1 12 Tf 72 720 Td (Acme Q-2026-014 Schedule B) Tj ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offs = []
    for i, o in enumerate(objs, 1):
        offs.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offs:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return out


add("2026-01-16 16:05", "+0800", JANE, ME,
    "Countersigned Schedule B for quote Q-2026-014",
    "This is a multi-part message in MIME format.\n\n"
    "--=_mixed_pdf_b\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 7bit\n\n"
    "Hi Alfred,\n\n"
    "Attached is Schedule B (pricing) countersigned by our finance director,\n"
    "Mr. Harith Osman. The master agreement itself still needs your signature\n"
    "by 30 January.\n\n"
    "Jane\n"
    "\n--=_mixed_pdf_b\n"
    'Content-Type: application/pdf; name="Acme-Q-2026-014-Schedule-B.pdf"\n'
    "Content-Transfer-Encoding: base64\n"
    'Content-Disposition: attachment; filename="Acme-Q-2026-014-Schedule-B.pdf"\n\n'
    + b64lines(tiny_pdf()) +
    "\n--=_mixed_pdf_b--\n",
    msgid="acme-schedule-b-pdf@acme.example",
    ctype='multipart/mixed; boundary="=_mixed_pdf_b"')

add("2026-01-22 07:50", "+0000", KOFI, ME,
    "Orion 2.0 release checklist",
    plain("""
Alfred,

Release checklist for Orion 2.0 (target: 17 March):

- freeze the feature branch on 2 March
- load test the CSV export (ORN-211) at 50k rows
- translate the onboarding wizard into Malay and French
- billing module waits for the new Acme API keys after the renewal

Kofi
"""), msgid="orion-checklist-2026-01@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

DEADLINE_TEXT = (
    "Hi Alfred,\n\n"
    "Just a friendly reminder that the signature deadline for the Acme renewal is "
    "Friday, 30 January. If we don\u2019t have the signed master agreement by then, the "
    "4% multi-year discount in quote Q-2026-014 lapses and we\u2019ll have to re-issue "
    "the paperwork at list price.\n\n"
    "DocuSign envelope reference: DS-88412. It\u2019s waiting in your inbox.\n\n"
    "Thanks,\nJane\n")
add("2026-01-27 10:00", "+0800", JANE, ME,
    "Reminder: signature deadline 30 January",
    qp(DEADLINE_TEXT), msgid="acme-deadline-reminder@acme.example",
    ctype="text/plain; charset=UTF-8", cte="quoted-printable")

add("2026-01-29 21:12", "+0800", ME, JANE,
    "Re: Reminder: signature deadline 30 January",
    "ok, thanks!\n", msgid="reply-deadline-ok@home.example",
    extra=("In-Reply-To: <acme-deadline-reminder@acme.example>",
           "References: <acme-deadline-reminder@acme.example>"),
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-01-30 15:30", "+0800", JANE, ME,
    "Acme renewal countersigned - welcome to 2026-2028",
    plain("""
Hi Alfred,

Great news: the renewal is fully countersigned. Term runs 1 February 2026 to
31 January 2028, with 60 days' notice under clause 7.2 and the early exit fee
limited to the first six months. Invoice INV-AC-2026-0131 follows separately.

Thanks for pushing this through before the deadline!
Jane
"""), msgid="acme-renewal-signed@acme.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

# ---- February - March 2026: Accra trip -------------------------------------

add("2026-02-10 19:15", "+0000", AMA, ME,
    enc_b("Birthday plans \u2708 see you on the 12th!"),
    plain("""
Alfred!

Mum has booked the terrace at Labadi Beach Hotel for my birthday dinner on
14 March. Kwame will fetch you at Kotoka airport when you land on the 12th.
Bring your swimming things.

Ama
"""), msgid="ama-birthday-plans@mail.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-02-12 13:05", "+0530", "SkyBridge Airways <bookings@skybridge.example>", ME,
    enc_q_latin1("R\u00e9servation confirm\u00e9e: KUL to ACC, 12 March"),
    plain("""
Dear Mr Alfred User,

Your booking is confirmed.

  Booking reference : SKB7Q2
  Outbound          : KUL -> DXB -> ACC, Thu 12 March 2026, dep 02:35
  Return            : ACC -> DXB -> KUL, Sun 22 March 2026, dep 19:10
  Fare paid         : MYR 4,318.00

Online check-in opens 48 hours before departure.

SkyBridge Airways
"""), msgid="skybridge-booking-skb7q2@skybridge.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-02-25 22:40", "+0800", ME, AMA,
    "Gift idea for your birthday",
    plain("""
Ama,

I found a batik silk scarf from Kuala Lumpur's Central Market in deep
indigo. Is that too boring? Otherwise I'll bring Malaysian kaya jam and
a box of Beryl's chocolates for Mum.

A.
"""),  # deliberately NO Message-ID
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-03-04 12:00", "+0800", DENTAL, ME,
    "Follow-up filling booked for 9 April",
    plain("""
Dear Alfred,

Following your check-up, Dr. Renee Wong has booked a small composite filling
on the lower left molar (tooth 36) for Thursday, 9 April 2026 at 11:00am.

Senyum Dental Clinic
"""), msgid="dental-filling-2026-03@senyumdental.example",
    ctype="text/plain; charset=UTF-8", cte="7bit",
    no_date=True)  # deliberately NO Date header

add("2026-03-23 09:30", "+0000", AMA, ME,
    "Thank you for coming!",
    plain("""
Thank you for coming all the way to Accra. The scarf is beautiful and Mum
has not stopped talking about the kaya jam. Safe flight home!

Ama
"""), msgid="ama-thanks-2026-03@mail.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

# ---- April 2026: Orion -------------------------------------------------------

RETRO_LONG_PARA = (
    "What went wrong deserves more space, because most of it was avoidable. "
    "The CSV export fix (ORN-211) passed the 50k-row load test in staging but "
    "fell over in production on the second day, when a customer in Kumasi "
    "exported 180k rows with embedded line breaks in the notes column; the "
    "streaming writer buffered the whole file in memory and the pod was killed "
    "by the out-of-memory reaper three times before anyone noticed the pattern. "
    "We had a ticket for realistic test fixtures from the beta, but it sat in "
    "the backlog because everybody assumed the synthetic data was good enough. "
    "Second, the Malay translation of the onboarding wizard shipped with two "
    "untranslated screens because the string freeze happened before the "
    "billing copy was final, and the billing copy was late because the new "
    "Acme API keys only arrived after the renewal was signed at the end of "
    "January. Third, our rollback runbook still referenced the old Helm chart "
    "names, so the rollback on Thursday night took forty minutes instead of "
    "five, and Farah had to rebuild the values file from memory while the "
    "incident channel watched. None of these were hard problems; they were "
    "all known risks that nobody owned, and the same pattern showed up in "
    "the 1.x post-mortem last year."
)
RETRO_LONG_PARA = textwrap.fill(RETRO_LONG_PARA, width=74)
assert len(RETRO_LONG_PARA) > 1200, len(RETRO_LONG_PARA)
RETRO = f"""Hi Alfred,

Here is my retrospective for the Orion 2.0 release, as promised in Monday's
stand-up. Short version: we shipped on 17 March as planned, adoption is ahead
of forecast, and we paid for it with a rough first week.

What went well: the feature freeze on 2 March held, the new dashboard was
praised by every pilot customer, and dark mode finally has proper contrast
(ORN-219). Support volume in the first fortnight was 30% lower than for 1.x.

{RETRO_LONG_PARA}

Proposed actions: (1) use anonymised production-shaped fixtures for every
load test; (2) translation freeze one week after the string freeze, not
before; (3) test the rollback runbook in the staging game day each quarter;
(4) name an owner for every item in the risk register.

Happy to walk through this at Friday's review.

Kofi
"""
add("2026-04-08 11:25", "+0000", KOFI, ME,
    "Orion 2.0 release retrospective",
    RETRO, msgid="orion-retro-2026-04@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

Q1_TEXT = """Hi Alfred,

Highlights from the Acme Q1 2026 service review:

- uptime 99.97%, no major incidents
- the new API keys for your Orion billing module are live
- 3 tickets opened, all closed within SLA

Next review in August.

Jane
"""
add("2026-05-06 10:10", "+0800", JANE, ME,
    "Acme Q1 2026 service review",
    "--=_alt_q1review\n"
    "Content-Type: text/plain; charset=UTF-8\n\n"
    + Q1_TEXT +
    "\n--=_alt_q1review\n"
    "Content-Type: text/html; charset=UTF-8\n\n"
    "<html><body><p>Hi Alfred,</p><p>Highlights from the Acme Q1 2026 service "
    "review:</p>\n<ul><li>uptime 99.97%, no major incidents</li><li>the new API "
    "keys for your Orion billing module are live</li><li>3 tickets opened, all "
    "closed within SLA</li></ul>\n<p>Next review in August.</p><p>Jane</p></body></html>\n"
    "\n--=_alt_q1review--\n",
    msgid="acme-review-2026-q1@acme.example",
    ctype='multipart/alternative; boundary="=_alt_q1review"')

# ---- June 2026: Q3 marketing budget (3 near-duplicates + 2 distinct) --------

BUDGET = """Hi Alfred,

Please approve the Q3 marketing budget of RM 86,000 in the finance portal
(request FIN-Q3-2026-07). {extra}Approval is needed before Friday so that
the media agency can book the September campaign slots.

Thanks,
Lina
"""
add("2026-06-15 09:00", "+0800", LINA, ME,
    "Please approve the Q3 marketing budget",
    BUDGET.format(extra=""), msgid="q3-budget-reminder-1@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-06-16 14:30", "+0800", LINA, ME,
    "Q3 marketing budget: breakdown by channel",
    plain("""
Hi Alfred,

As asked, the Q3 marketing budget by channel:

  Search and social ads  RM 38,000
  LRT station billboard  RM 21,000
  Trade show (Penang)    RM 17,000
  Content and video      RM 10,000

Lina
"""), msgid="q3-budget-breakdown@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-06-17 09:00", "+0800", LINA, ME,
    "Reminder: Please approve the Q3 marketing budget",
    BUDGET.format(extra="This is a gentle reminder. "),
    msgid="q3-budget-reminder-2@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-06-19 09:00", "+0800", LINA, ME,
    "Please approve the Q3 marketing budget (final reminder)",
    BUDGET.format(extra="Final reminder! ").replace("before Friday", "by today"),
    msgid="q3-budget-reminder-3@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-06-19 17:45", "+0800", ME, LINA,
    "Re: Please approve the Q3 marketing budget",
    plain("""
Lina,

Approved in the portal, with one change: drop the LRT station billboard and
move RM 11,000 of it to the Penang trade show booth. Total becomes RM 76,000.

Alfred
"""), msgid="q3-budget-approved@home.example",
    extra=("In-Reply-To: <q3-budget-reminder-3@work.example>",
           "References: <q3-budget-reminder-1@work.example> <q3-budget-reminder-3@work.example>"),
    ctype="text/plain; charset=UTF-8", cte="7bit")

# ---- July - November 2026 ---------------------------------------------------

# Contains a body line starting "From " (-> ">From " in the mbox) and an
# old-style quote line ">From " (-> ">>From " in the mbox).
add("2026-07-01 20:05", "+0800", LANDLORD, ME,
    "Tenancy renewal and new rent from 1 September",
    plain("""
Hi Alfred,

Your tenancy ends on 31 August. I am happy to renew for another two years.
From 1 September the monthly rent will be RM 2,350 (up from RM 2,200).

About your question on the deposit, you wrote:

>From what I remember, the deposit was two months plus one month utility.

Yes, that's right: RM 4,400 security plus RM 1,100 utility deposit, both
carried over to the new agreement.

Regards,
Lim
"""), msgid="tenancy-renewal-2026-07@mail.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-07-18 23:55", "+0800", "TNB Customer Care <notice@tnb.example>", ME,
    "Unplanned outage in Bangsar: supply restored",
    plain("""
Dear customer,

The unplanned outage affecting Jalan Telawi, Bangsar from 9:40pm tonight was
caused by a cable fault after heavy rain. Supply was restored at 11:30pm.
Report damaged appliances within 14 days quoting case OUT-260718-0093.

TNB Customer Care
"""), msgid="tnb-outage-2026-07@tnb.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-08-05 09:00", "+0800", TNB, ME,
    "Your TNB electricity bill for July 2026",
    plain("""
Dear customer,

Your electricity bill for account 1234 is ready.

  Usage this period : 498 kWh
  Amount due        : RM 176.85
  Due date          : 26 August 2026

Tenaga Nasional Berhad
"""), msgid="tnb-bill-2026-07@tnb.example",
    ctype="text/plain; charset=us-ascii", cte="7bit")

add("2026-09-09 12:15", "+0530", "Acme Billing Support <billing@acme.example>", ME,
    "Acme invoice INV-AC-2026-0917: duplicate charge query",
    plain("""
Hello Alfred,

Thanks for flagging invoice INV-AC-2026-0917. You are right: the storage
add-on was charged twice for August. A credit note CN-2026-0412 for
MYR 640.00 will be applied to your next invoice.

Acme Billing Support (Bengaluru)
"""), msgid="acme-billing-0917@acme.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-09-25 08:40", "+0000", KOFI, ME,
    "Orion 2.1 planning: offsite in Accra",
    plain("""
Alfred,

For Orion 2.1 planning I'd like to run a two-day offsite at our Accra office
on 15-16 October. Agenda: offline mode, the audit log, and the Acme usage
export. Could you join remotely for the roadmap session?

Kofi
"""), msgid="orion-21-offsite@work.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-10-13 10:30", "+0800", DENTAL, ME,
    "Six-month check-up booked for 3 November",
    plain("""
Dear Alfred,

Your six-month check-up with Dr. Renee Wong is booked for Tuesday,
3 November 2026 at 9:00am. Please arrive ten minutes early.

Senyum Dental Clinic
"""), msgid="dental-checkup-2026-10@senyumdental.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-11-03 09:00", "-0500", "Acme Events <events@acme.example>", ME,
    "Invitation: Acme 2027 roadmap briefing",
    plain("""
Dear customer,

Join Acme's product team for the 2027 roadmap briefing on 20 November
(webinar, 8:00pm Kuala Lumpur time). Topics: regional data residency,
the new usage-based pricing tier, and early renewal incentives.

Acme Events, New York
"""), msgid="acme-roadmap-2027@acme.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")

add("2026-11-24 18:20", "+0000", AMA, ME,
    "Christmas in Accra?",
    plain("""
Alfred, are you coming for Christmas? Mum wants to make jollof and light
soup for everyone on the 25th. Tell me your dates so Kwame can plan the
airport run.

Ama
"""), msgid="ama-christmas-2026@mail.example",
    ctype="text/plain; charset=UTF-8", cte="7bit")


# ---------------------------------------------------------------------------
# mboxrd writer
# ---------------------------------------------------------------------------

FROM_RE = re.compile(rb"^>*From ")


def mboxrd_quote(raw: bytes) -> bytes:
    lines = raw.split(b"\n")
    return b"\n".join(b">" + l if FROM_RE.match(l) else l for l in lines)


def envelope(sender, d):
    u = d.astimezone(timezone.utc)
    # asctime() layout: day of month space-padded ("Jan  5")
    return ("From %s %s %s %2d %s %d" % (
        sender, u.strftime("%a"), u.strftime("%b"), u.day,
        u.strftime("%H:%M:%S"), u.year)).encode("ascii")


def write_mbox(path):
    out = bytearray()
    for sender, d, raw in MESSAGES:
        assert raw.endswith(b"\n")
        out += envelope(sender, d) + b"\n" + mboxrd_quote(raw) + b"\n"
    with open(path, "wb") as f:
        f.write(bytes(out))


# ---------------------------------------------------------------------------
# receipts.json (varied field names on purpose)
# ---------------------------------------------------------------------------

RECEIPTS = [
    {"id": "tnb-2025-11", "biller": "TNB (electricity)", "amount_due": "151.20",
     "currency": "MYR", "account": "1234", "billing_date": "03/12/2025",
     "items": [{"description": "Energy charge 455 kWh", "amount": "139.30"},
               {"description": "Service tax 8%", "amount": "11.14"},
               {"description": "KWTBB 1.6%", "amount": "0.76"}]},
    {"id": "tnb-2026-01", "biller": "TNB (electricity)", "amount_due": "182.40",
     "currency": "MYR", "account": "1234", "billing_date": "07/01/2026",
     "items": [{"description": "Energy charge 512 kWh", "amount": "160.10"},
               {"description": "Service tax 8%", "amount": "12.81"},
               {"description": "Retail charge", "amount": "9.49"}]},
    {"id": "acme-inv-2026-0131", "vendor": "Acme Sdn Bhd", "total": "46656.00",
     "currency": "MYR", "date": "2026-01-31", "invoice_no": "INV-AC-2026-0131",
     "payment_method": "bank transfer", "po_number": "PO-7781",
     "items": [{"description": "Platform licence Feb 2026 - Jan 2027 (quote Q-2026-014, 4% multi-year discount)",
                "amount": "46656.00"}]},
    {"id": "grab-2026-02-14", "merchant": "Grab", "amount": 38.5,
     "currency": "MYR", "paid_at": "2026-02-14T22:18:05+08:00",
     "note": "Ride KLCC to Bangsar after dinner"},
    {"id": "skybridge-skb7q2", "merchant": "SkyBridge Airways", "amount": 4318.0,
     "currency": "MYR", "paid_at": "2026-02-12T07:35:00Z",
     "items": [{"description": "Return fare KUL-ACC, booking SKB7Q2", "amount": 3980.0},
               {"description": "Extra bag 23 kg", "amount": 338.0}]},
    {"id": "senyum-2026-04-09", "company": "Senyum Dental Clinic", "total": "420.00",
     "date": "09 APR 2026", "payment_method": "card ending 4421",
     "invoice_no": "SDC-26-0409",
     "items": [{"description": "Composite filling, tooth 36", "amount": "280.00"},
               {"description": "Bitewing X-ray", "amount": "140.00"}]},
    {"id": "rent-2026-09", "payee": "Lim Wei Jie (landlord)", "total": 2350,
     "currency": "MYR", "date": "2026-09-01", "payment_method": "DuitNow",
     "reference": "RENT SEP 2026 JLN TELAWI"},
    {"id": "fibrenet-2026-11", "vendor": "FibreNet Home 500Mbps", "total": "139.00",
     "currency": "MYR", "date": "2026-11-02T09:00:00+08:00",
     "invoice_no": "FN-1122-7781", "auto_debit": True},
]

# ---------------------------------------------------------------------------
# conversations.jsonl
# ---------------------------------------------------------------------------

ACCRA_CHAT = [
    ("user", "I'm flying from Kuala Lumpur to Accra on 12 March for my sister Ama's birthday on the 14th. Can you help me plan the ten days?"),
    ("assistant", "Happy to help. A few questions first: where are you staying, do you want day trips outside Accra, and is there anything you must avoid, food-wise?"),
    ("user", "I'm staying with my mum in East Legon. I'd like one or two day trips. And I'm allergic to shellfish, so I need to be careful with soups and stews."),
    ("assistant", "Noted on the shellfish allergy: ask about crab and shrimp in light soup and in okra stew, and say 'no shito' at chop bars, since shito is usually made with dried shrimp. Jollof, kelewele, waakye and grilled tilapia are normally safe."),
    ("user", "Good tip about shito. What day trips would you suggest?"),
    ("assistant", "Two classics: Cape Coast Castle and Kakum National Park with its canopy walkway (leave by 6am, it's about three hours each way), or the Aburi Botanical Gardens in the hills, which is a relaxed half day and cooler than the city."),
    ("user", "Let's do Aburi on Monday 16 March and Cape Coast on Wednesday 18 March. Ama's dinner is at Labadi Beach Hotel on the 14th."),
    ("assistant", "Then keep the 13th light to recover from the flight, the 15th for family lunch, and book a driver for the 18th. Kwame could do Aburi if he is free."),
    ("user", "What about money and a SIM card?"),
    ("assistant", "Buy an MTN SIM at Kotoka airport with your passport (Ghana Card registration for visitors is done on the spot). Change a small amount of cash at the airport and the rest at a forex bureau in Osu; mobile money is accepted almost everywhere."),
    ("user", "Great. Please summarise the plan so I can paste it into my notes."),
    ("assistant", "Plan: 12 Mar arrive KUL->ACC via Dubai, Kwame fetches you; 13 Mar rest; 14 Mar Ama's birthday dinner at Labadi Beach Hotel; 15 Mar family lunch; 16 Mar Aburi Botanical Gardens; 18 Mar Cape Coast Castle and Kakum canopy walk (driver booked); 22 Mar fly home at 19:10. Remember: no shellfish, no shito, MTN SIM and cedis at the airport."),
]

ORION_CHAT = [
    ("kofi", "Kofi Mensah", "2026-01-21T09:05:00+00:00", "Morning. Orion 2.0 go/no-go: everything is green except the billing module."),
    ("me", "Alfred", "2026-01-21T17:07:00+08:00", "That's the Acme dependency, right? Their new API keys only come after the contract renewal."),
    ("kofi", "Kofi Mensah", "2026-01-21T09:09:30+00:00", "Exactly. Jane Tan said the keys are issued the day the renewal is countersigned. The signature deadline is 30 January."),
    ("me", "Alfred", "2026-01-21T17:11:00+08:00", "I'll sign before the 30th. Can we keep the 17 March release date if the keys land in early February?"),
    ("kofi", "Kofi Mensah", "2026-01-21T09:14:00+00:00", "Yes, the integration is two days of work plus a week of sandbox testing. Go, conditional on the Acme keys by 6 February."),
    ("me", "Alfred", "2026-01-21T17:15:30+08:00", "Agreed. Put the condition in the release notes and the risk register, owner: me."),
]

AIRCON_CHAT = [
    ("landlord", "Lim Wei Jie", "Alfred, the Daikin technician can come on Thursday between 2 and 5pm for the bedroom aircon."),
    ("me", "Alfred", "Thanks. It's dripping water onto the wardrobe again, probably the drain pipe is blocked."),
    ("landlord", "Lim Wei Jie", "He will flush the drain pipe and top up the gas. I'll pay for it, don't worry."),
    ("me", "Alfred", "Much appreciated. I'll leave the key at the guardhouse."),
]

CONVERSATIONS = [
    {"id": "conv-orion-go-no-go", "title": "Orion 2.0 go/no-go with Kofi",
     "date": "2026-01-21T09:05:00+00:00",
     "messages": [{"id": f"m{i}", "speaker": name, "text": text, "at": at}
                  for i, (_sid, name, at, text) in enumerate(ORION_CHAT, 1)]},
    {"id": "conv-accra-trip-plan", "title": "Planning the Accra trip",
     "date": "2026-02-20T21:30:00+08:00",
     "messages": [{"role": r, "content": c} for r, c in ACCRA_CHAT]},
    {"id": "conv-aircon-repair", "title": "Bedroom aircon repair with the landlord",
     "date": "2026-08-18T10:15:00+08:00",
     "messages": [{"id": f"m{i}", "speaker": name, "text": text}
                  for i, (_sid, name, text) in enumerate(AIRCON_CHAT, 1)]},
]

FACTS = [
    "Ama's birthday is on 14 March.",
    "Jane Tan is my contact at Acme (jane@acme.example).",
    "I am allergic to shellfish.",
    "My TNB electricity account number is 1234.",
    "Kofi Mensah leads the Orion project and works from the Accra office.",
]


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(outdir, exist_ok=True)
    write_mbox(os.path.join(outdir, "mail.mbox"))
    with open(os.path.join(outdir, "receipts.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(RECEIPTS, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(outdir, "conversations.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for c in CONVERSATIONS:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    with open(os.path.join(outdir, "facts.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(FACTS) + "\n")
    print(f"wrote {len(MESSAGES)} messages, {len(RECEIPTS)} receipts, "
          f"{len(CONVERSATIONS)} conversations, {len(FACTS)} facts to {outdir}")


if __name__ == "__main__":
    main()
