"""SCORM 1.2 and 2004 packages: a well-formed manifest listing every file, with the mastery
score and the licence; the module inside a scorm-again LMS harness reporting progress, a 0-100
score and suspend data, keeping one session per launch through a site link, a reload of its
frame and of the LMS page, and keeping the answers made after a session has ended."""
import json
import re
import shutil
import xml.etree.ElementTree as ET
import zipfile

import pytest

from code_typing import type_code
from conftest import ROOT, guarded_context, prime_snapshot, serve_directory
from seqbuild import scorm
from seqlabs import api

VERSIONS = {"1.2": ("scorm12", "Scorm12API", "LMSSetValue"), "2004": ("scorm2004", "Scorm2004API", "SetValue")}


@pytest.fixture(scope="module", params=list(VERSIONS))
def package(request, site_dir, tmp_path_factory):
    version = request.param
    out = tmp_path_factory.mktemp(f"scorm{version}") / "package.zip"
    return version, scorm.make_package(site_dir, out, version)


def test_manifest_is_well_formed_and_lists_every_file(package):
    version, path = package
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        root = ET.fromstring(zf.read("imsmanifest.xml"))
    ns = {"cp": root.tag[1:].split("}")[0]}
    assert root.find("cp:metadata/cp:schema", ns).text == "ADL SCORM"
    assert root.find("cp:metadata/cp:schemaversion", ns).text == {"1.2": "1.2", "2004": "2004 4th Edition"}[version]
    orgs = root.find("cp:organizations", ns)
    assert orgs.get("default") == orgs.find("cp:organization", ns).get("identifier")
    item = orgs.find("cp:organization/cp:item", ns)
    resource = root.find("cp:resources/cp:resource", ns)
    assert item.get("identifierref") == resource.get("identifier")
    scorm_type = [v for k, v in resource.attrib.items() if k.lower().endswith("scormtype")]
    assert scorm_type == ["sco"] and resource.get("href") == "module/index.html"
    listed = {f.get("href") for f in resource.findall("cp:file", ns)}
    assert listed <= names and "module/index.html" in listed
    assert {"assets/vendor/pyodide/pyodide.asm.wasm", "assets/seqlabs-models.zip", "sw.js"} <= listed
    assert names - listed == {"imsmanifest.xml"}


def test_manifests_carry_the_mastery_score_and_the_licence(package):
    version, path = package
    extra = scorm.site_extra()
    want = extra.get("scorm", {}).get("mastery_score", 80)
    with zipfile.ZipFile(path) as zf:
        root = ET.fromstring(zf.read("imsmanifest.xml"))
    tags = {el.tag.split("}")[-1]: el for el in root.iter()}
    item = root.find(".//{*}organization/{*}item")
    if version == "1.2":
        assert item.find("{http://www.adlnet.org/xsd/adlcp_rootv1p2}masteryscore").text == str(want)
    else:
        objective = item.find("{*}sequencing/{*}objectives/{*}primaryObjective")
        assert objective.get("satisfiedByMeasure") == "true"
        assert float(objective.find("{*}minNormalizedMeasure").text) == want / 100
    assert tags["title"] is not None and "lom" in tags
    statement = scorm.rights_statement(extra)
    if statement:
        restricted = tags["copyrightAndOtherRestrictions" if version == "2004" else "copyrightandotherrestrictions"]
        assert "".join(restricted.find("{*}value").itertext()).strip() == "yes"
        assert "".join(tags["rights"].find("{*}description").itertext()).strip() == statement
    else:
        assert "rights" not in tags


def test_the_mastery_score_and_the_rights_come_from_mkdocs_extra(tmp_path):
    site = tmp_path / "site"
    (site / "module").mkdir(parents=True)
    (site / "module" / "index.html").write_text("<!doctype html>")
    extra = {"scorm": {"mastery_score": 65}, "licence": {"code": "MIT", "text": "CC-BY-4.0"}}
    for version in VERSIONS:
        with zipfile.ZipFile(scorm.make_package(site, tmp_path / f"{version}.zip", version, extra)) as zf:
            text = zf.read("imsmanifest.xml").decode()
        ET.fromstring(text)
        assert ("<adlcp:masteryscore>65</adlcp:masteryscore>" if version == "1.2"
                else "<imsss:minNormalizedMeasure>0.65</imsss:minNormalizedMeasure>") in text
        assert "CC-BY-4.0 MIT" in text
        bare = scorm.manifest(version, ["module/index.html"])
        assert "rights" not in bare and ("<adlcp:masteryscore>80<" in bare or ">0.8</imsss:min" in bare)
    with pytest.raises(SystemExit):
        scorm.mastery_score({"scorm": {"mastery_score": 180}})


# Makes the LMS refuse the first learner response it is sent, for real: the wrapper passes on a
# value with a line break, which neither version's validation accepts for these types.
REFUSE_FIRST_RESPONSE = """
  const api = window.{global_name};
  const set = api.{setter}.bind(api);
  let refused = false;
  api.{setter} = (element, value) => {{
    if (!refused && /^cmi\\.interactions\\.\\d+\\.(student|learner)_response$/.test(element)) {{
      refused = true;
      return set(element, "not\\na number");
    }}
    return set(element, value);
  }};
"""


CALL_NAMES = {"1.2": ("LMSInitialize", "LMSCommit", "LMSFinish", "LMSGetLastError"),
              "2004": ("Initialize", "Commit", "Terminate", "GetLastError")}


def manifest_mastery(content):
    """The mastery score (0-100) the package's manifest gives, as an LMS reads it."""
    root = ET.parse(content / "imsmanifest.xml").getroot()
    for el in root.iter():
        if el.tag.endswith("}masteryscore"):
            return float(el.text)
        if el.tag.endswith("}minNormalizedMeasure"):
            return float(el.text) * 100
    return None


def harness(tmp_path, version, package_path, initial=None, extra="", persist=False, mastery=None):
    """An LMS page with scorm-again's API and the package's launch page in a frame, which hands
    the SCO the manifest's mastery score (or `mastery`) as an LMS does. Every API call is logged
    in window.calls as [element, value] or [call, "result:last error"]. With persist, the
    LMS's data and the log live in sessionStorage, so a reload of the LMS page is a new launch
    of the same attempt, as in a real LMS."""
    name, api_class, _ = VERSIONS[version]
    with zipfile.ZipFile(package_path) as zf:
        zf.extractall(tmp_path / "content")
    mastery = manifest_mastery(tmp_path / "content") if mastery is None else mastery
    shutil.copy(ROOT / "node_modules" / "scorm-again" / "dist" / f"{name}.js", tmp_path / "lms.js")
    global_name = "API" if version == "1.2" else "API_1484_11"
    setter = VERSIONS[version][2]
    init, commit, finish, last_error = CALL_NAMES[version]
    mastery_json = ({"student_data": {"mastery_score": f"{mastery:g}"}} if version == "1.2"
                    else {"scaled_passing_score": f"{mastery / 100:g}"})
    (tmp_path / "lms.html").write_text(f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LMS</title>
<script src="lms.js"></script>
<script>
  const persist = {json.dumps(persist)};
  window.calls = persist ? JSON.parse(sessionStorage.getItem("calls") ?? "[]") : [];
  const log = (entry) => {{
    window.calls.push(entry);
    if (persist) sessionStorage.setItem("calls", JSON.stringify(window.calls));
  }};
  const api = window.{global_name} = new {api_class}({{autocommit: false, logLevel: 5}});
  const saved = persist ? JSON.parse(sessionStorage.getItem("cmi") ?? "null") : null;
  const initial = saved ?? {json.dumps(initial)} ?? {{}};
  const mastery = {json.dumps(mastery_json)};
  for (const [key, value] of Object.entries(mastery)) {{
    initial[key] = value && typeof value === "object" ? {{...initial[key], ...value}} : value;
  }}
  api.loadFromJSON(initial, "cmi");
  api.on("{setter}.cmi.*", (element, value) => {{
    log([element, String(value)]);
    if (persist) sessionStorage.setItem("cmi", JSON.stringify(api.renderCMIToJSONObject().cmi));
  }});
  for (const name of ["{init}", "{commit}", "{finish}"]) {{
    const original = api[name];
    api[name] = (...args) => {{
      const result = original.apply(api, args);
      log([name, `${{result}}:${{api.{last_error}()}}`]);
      if (persist) sessionStorage.setItem("cmi", JSON.stringify(api.renderCMIToJSONObject().cmi));
      return result;
    }};
  }}
  window.lmsState = () => api.renderCMIToJSONObject();
  {{ {extra.format(global_name=global_name, setter=setter)} }}
</script></head>
<body><iframe id="sco" title="module" src="content/module/index.html#exercises" style="width: 100%; height: 900px"></iframe></body></html>""")


@pytest.fixture
def lms_server(tmp_path):
    with serve_directory(tmp_path, files_only=True) as origin:
        yield tmp_path, origin


def open_lms_page(browser, origin, python=False):
    """The LMS page in a guarded context of its own: (context, guard, page, page errors, the SCO's frame).
    python: the learner has opened the package before, so that Python restores from its snapshot."""
    # Python starts when an exercise needs it (new numbers, a code check), not on its own when
    # idle: these tests are about what reaches the LMS; the start itself, from a boot or from the
    # snapshot, is tested in test_snapshot_browser.py and test_engines.py.
    context, guard = guarded_context(browser, origin)
    if python:
        prime_snapshot(context, f"{origin}/content")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{origin}/lms.html", wait_until="load")
    return context, guard, page, errors, page.frame_locator("#sco")


def run_session(browser, origin, act=None, python=False):
    """One launch of the SCO in the LMS page: act(frame) does what the learner does; returns
    what act returned, the LMS calls and the LMS's CMI data as JSON. python: as open_lms_page."""
    context, guard, page, errors, frame = open_lms_page(browser, origin, python)
    frame.locator(".exercise-summary").wait_for()
    seen = act(frame) if act else None
    # Closing the SCO (the LMS removes its frame) must commit and terminate.
    page.evaluate("() => document.getElementById('sco').remove()")
    calls = page.evaluate("() => window.calls")
    state = page.evaluate("() => window.lmsState()")
    context.close()
    assert guard.off_origin == [] and errors == []
    return seen, calls, state


def interactions(state):
    """The LMS's interactions, in order, as plain dicts."""
    found = state["cmi"]["interactions"]
    rows = found.get("childArray", found) if isinstance(found, dict) else found
    if isinstance(rows, dict):
        rows = [rows[k] for k in sorted((k for k in rows if k.isdigit()), key=int)]
    return rows


def check(frame, ex, label, value):
    box = frame.locator(ex)
    box.get_by_label(label).fill(value)
    box.get_by_role("button", name="Check").click()
    return box.locator(".exercise-feedback").text_content()


def first_launch(frame):
    """Four attempts (one wrong), a written answer, and new numbers for Exercise 2."""
    assert frame.locator("#exercise-context-value .exercise-feedback").text_content() == ""
    assert check(frame, "#exercise-context-value", "Context value", "2").startswith("✗")
    assert check(frame, "#exercise-context-value", "Context value", "19/10") == "✓ Correct."
    box = frame.locator("#exercise-sequential-steps")
    box.get_by_label("Sequential steps for the RNN").fill("1000")
    box.get_by_label("Sequential steps for one self-attention layer").fill("1")
    box.get_by_role("button", name="Check").click()
    frame.locator("#exercise-extend textarea").fill("Only the last state reaches the decoder.")
    frame.locator("#exercise-extend").get_by_role("button", name="Compare with the solution").click()
    ex2 = frame.locator("#exercise-vanishing-fraction")
    ex2.get_by_role("button", name="New numbers").click()
    frame.locator("#exercise-vanishing-fraction[data-variant-state='ready']").wait_for(timeout=90_000)
    seed = int(ex2.get_attribute("data-seed"))
    want = api.call("exercise-variant", {"exercise": "exercise-vanishing-fraction", "seed": seed})
    assert check(frame, "#exercise-vanishing-fraction", "Largest fraction", want["answer_text"]) == "✓ Correct."
    return seed, want


@pytest.mark.browser
def test_the_module_reports_to_the_lms_and_restores_answers(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    harness(folder, version, path)
    (seed, want), calls, state = run_session(browser, origin, first_launch, python=True)
    values = dict(calls)
    # 4 of 9 exercises done: 44 out of 100, under the mastery score of 80.
    if version == "1.2":
        assert values["cmi.core.score.raw"] == "44" and values["cmi.core.score.max"] == "100"
        assert values["cmi.core.score.min"] == "0" and values["cmi.core.lesson_status"] == "incomplete"
        assert values["cmi.core.exit"] == "suspend"
        assert re.fullmatch(r"\d{4}:\d\d:\d\d\.\d\d", values["cmi.core.session_time"])
    else:
        assert values["cmi.score.raw"] == "44" and values["cmi.score.scaled"] == "0.44"
        assert values["cmi.score.min"] == "0" and values["cmi.score.max"] == "100"
        assert values["cmi.completion_status"] == "incomplete" and values["cmi.success_status"] == "failed"
        assert values["cmi.exit"] == "suspend"
        assert re.fullmatch(r"PT(\d+H)?(\d+M)?\d+\.\d\dS", values["cmi.session_time"])
    suspend = values["cmi.suspend_data"]
    assert len(suspend) <= 4096
    rows = json.loads(suspend)
    assert rows["exercise-context-value"][1] == 1 and rows["exercise-vanishing-fraction"][5] == seed
    init = "LMSInitialize" if version == "1.2" else "Initialize"
    assert calls[0][0] == init and any(c[0] in ("LMSCommit", "Commit") for c in calls)
    assert calls[-1][0] == ("LMSFinish" if version == "1.2" else "Terminate")

    # One interaction per checked attempt, each with the fields its version has.
    got = interactions(state)
    assert [i["id"] for i in got] == ["exercise-context-value"] * 2 + ["exercise-sequential-steps", "exercise-vanishing-fraction"]
    response, wrong = ("student_response", "wrong") if version == "1.2" else ("learner_response", "incorrect")
    assert [i["type"] for i in got] == ["numeric", "numeric", "fill-in", "numeric"]
    assert [i[response] for i in got] == ["2", "1.9", "1000,1" if version == "1.2" else "1000[,]1",
                                          format(want["answer"][0], ".10f").rstrip("0")]
    assert [i["result"] for i in got] == [wrong, "correct", "correct", "correct"]
    for i in got:
        if version == "1.2":
            assert re.fullmatch(r"\d\d:\d\d:\d\d", i["time"]) and re.fullmatch(r"\d{4}:\d\d:\d\d\.\d\d", i["latency"])
        else:
            assert re.fullmatch(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\dZ", i["timestamp"])
            assert re.fullmatch(r"PT(\d+H)?(\d+M)?\d+\.\d\dS", i["latency"])
    if version == "2004":
        assert got[3]["description"].startswith(f"New numbers (set {seed})")

    # A new launch, in a browser with no local copy, from the LMS's saved data: the answers, the
    # progress and the drawn numbers come back, and new attempts are added after the old ones.
    shutil.rmtree(folder / "content")
    harness(folder, version, path, initial=state["cmi"])

    def relaunch(frame):
        assert "solved this one before" in frame.locator("#exercise-context-value .exercise-feedback").text_content()
        assert "4 of 9" in frame.locator(".exercise-summary").text_content()
        frame.locator("#exercise-vanishing-fraction[data-variant-state='ready']").wait_for(timeout=90_000)
        shown = {k: frame.locator(f"#exercise-vanishing-fraction [data-var='{k}']").text_content() for k in want["values"]}
        assert shown == want["values"]
        assert check(frame, "#exercise-vanishing-fraction", "Largest fraction", "0.0015").startswith("✗")

    _, _, state = run_session(browser, origin, relaunch, python=True)
    assert [i["id"] for i in interactions(state)][-2:] == ["exercise-vanishing-fraction"] * 2
    assert len(interactions(state)) == 5


@pytest.mark.browser
def test_a_value_the_lms_refuses_loses_nothing_else(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    # The LMS's mastery score, not the package's default, decides: 1 of 9 (11) passes at 10.
    harness(folder, version, path, extra=REFUSE_FIRST_RESPONSE, mastery=10)

    def attempts(frame):
        assert check(frame, "#exercise-context-value", "Context value", "1,9") == "✓ Correct."
        assert check(frame, "#exercise-context-value", "Context value", "2").startswith("✗")

    _, calls, state = run_session(browser, origin, attempts)
    first, second = interactions(state)
    response = "student_response" if version == "1.2" else "learner_response"
    # The refused response was sent again as free text under the most permissive type ...
    assert first["id"] == "exercise-context-value" and first["result"] == "correct"
    assert (first["type"], first[response]) == (("fill-in", "1,9") if version == "1.2" else ("other", "1,9"))
    assert first["latency"]
    # ... and the next attempt, the score and the suspend data went through as usual.
    assert (second["type"], second[response]) == ("numeric", "2")
    assert dict(calls)["cmi.suspend_data"]
    status = state["cmi"]["core"]["lesson_status"] if version == "1.2" else state["cmi"]["success_status"]
    assert status == "passed"


CONTEXT_VECTOR = ("def context_vector(scores, H):\n"
                  "    w = np.exp(scores - scores.max())\n"
                  "    return (w / w.sum()) @ H")


@pytest.mark.browser
def test_a_code_exercise_checked_in_the_lms_is_one_interaction_and_its_draft_comes_back(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    harness(folder, version, path)
    ex = "#exercise-code-context-vector"

    def solve(frame):
        box = frame.locator(ex)
        box.scroll_into_view_if_needed()
        field = box.get_by_label("Your context_vector (Python, numpy as np)", exact=False)
        type_code(field.page, field, "def context_vector(scores, H):\n    return H[0]")   # wrong
        box.get_by_role("button", name="Check").click()
        frame.locator(f"{ex}[data-state='wrong']").wait_for(timeout=120_000)
        type_code(field.page, field, CONTEXT_VECTOR)
        box.get_by_role("button", name="Check").click()
        frame.locator(f"{ex}[data-state='correct']").wait_for(timeout=60_000)

    _, calls, state = run_session(browser, origin, solve, python=True)
    got = interactions(state)
    assert [i["id"] for i in got] == ["exercise-code-context-vector"] * 2
    response, wrong = ("student_response", "wrong") if version == "1.2" else ("learner_response", "incorrect")
    assert [i["type"] for i in got] == (["performance"] * 2 if version == "1.2" else ["other"] * 2)
    assert [i["result"] for i in got] == [wrong, "correct"]
    # 1.2 keeps one line of at most 255 characters (newlines written as \n); 2004 keeps the code.
    sent = got[1][response]
    assert sent == (CONTEXT_VECTOR.replace("\n", "\\n") if version == "1.2" else CONTEXT_VECTOR)
    assert dict(calls)["cmi.core.score.raw" if version == "1.2" else "cmi.score.raw"] == "11"  # 1 of 9

    # Relaunched elsewhere from the LMS's data alone: solved, with the draft in the field.
    shutil.rmtree(folder / "content")
    harness(folder, version, path, initial=state["cmi"])

    def relaunch(frame):
        assert "1 of 9" in frame.locator(".exercise-summary").text_content()
        frame.locator(f"{ex}[data-state='correct']").wait_for()
        lines = frame.locator(f"{ex} :is(.cm-line, textarea)")
        box_text = frame.locator(ex).evaluate(
            "(b) => { const l = [...b.querySelectorAll('.cm-line')]; return l.length ? l.map((x) => x.textContent).join('\\n') : b.querySelector('textarea').value; }")
        assert box_text == CONTEXT_VECTOR and lines.count() >= 1

    run_session(browser, origin, relaunch)


@pytest.mark.browser
def test_standalone_the_module_throws_nothing_and_saves_locally(page, server):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/module/#exercise-context-value", wait_until="load")
    page.wait_for_selector(".exercise-summary")
    box = page.locator("#exercise-context-value")
    box.get_by_label("Context value").fill("1.9")
    box.get_by_role("button", name="Check").click()
    saved = json.loads(page.evaluate("() => localStorage.getItem('seqlabs:progress:v1')"))
    assert saved["exercises"]["exercise-context-value"]["correct"] is True
    assert errors == []


SCO = "document.getElementById('sco')"


def sco_ready(page, done):
    """Waits for a new document in the SCO's frame (the old one was marked stale) to show its
    summary, and returns the progress it shows."""
    page.wait_for_function(f"() => {{ const w = {SCO}?.contentWindow; return w && !w.stale && "
                           f"w.document.querySelector('.exercise-summary[data-done]'); }}")
    summary = page.frame_locator("#sco").locator(".exercise-summary")
    assert f"{done} of 9" in summary.text_content()
    return int(summary.get_attribute("data-done"))


def lms_raw(page, version):
    core = page.evaluate("() => window.lmsState().cmi")
    return (core["core"]["score"] if version == "1.2" else core["score"])["raw"]


@pytest.mark.browser
def test_every_attempt_reaches_the_lms_across_leaving_reloading_and_closing(browser, package, lms_server):
    """One attempt; the site's menu (a new tab, the session goes on) and every link that stays in
    the frame (the page goes on); a second; a reload of the
    SCO's frame (the same session, resumed from the LMS, not from this browser); a third; a
    reload of the whole LMS page (a new launch of the same attempt); a fourth; the LMS closes
    the SCO. Every attempt is one interaction, no initialisation is refused, and the page's
    progress is the LMS's score."""
    version, path = package
    folder, origin = lms_server
    harness(folder, version, path, persist=True)
    init, commit, finish, _ = CALL_NAMES[version]
    context, guard, page, errors, frame = open_lms_page(browser, origin)
    sco_ready(page, 0)
    assert check(frame, "#exercise-context-value", "Context value", "1.9") == "✓ Correct."

    # Every link off the page opens a new tab; the page's own anchors stay as they are.
    links = frame.locator("a[href]").evaluate_all("""(as) => as.filter((a) => a instanceof HTMLAnchorElement && !a.hasAttribute('download')).map((a) => ({href: a.getAttribute('href'),
        target: a.target, rel: a.rel, away: new URL(a.href).pathname.replace(/index\\.html$/, '') !== location.pathname.replace(/index\\.html$/, '')}))""")
    away = [a for a in links if a["away"]]
    assert any("instructors/" in a["href"] for a in away)
    assert all(a["target"] == "_blank" and "noopener" in a["rel"].split() for a in away)
    assert all(a["target"] == "" for a in links if a["href"].startswith("#"))
    menu = frame.locator("a[href*='instructors/']:visible").first
    with context.expect_page() as new_tab:
        menu.click()
    new_tab.value.wait_for_load_state()
    assert "/instructors/" in new_tab.value.url
    assert new_tab.value.locator("article h1").count() == 1  # the page, not the LMS's 404
    # The labs' own links to the site (made in the page, not by the build) name files too.
    help_link = frame.locator("a", has_text="How to open it in Jupyter or Colab").first.get_attribute("href")
    assert help_link.endswith("/instructors/index.html#labs-as-jupyter-notebooks"), help_link
    new_tab.value.close()
    assert page.evaluate(f"() => {SCO}.contentWindow.location.pathname").endswith("/module/index.html")
    assert [c for c in page.evaluate("() => window.calls") if c[0] == finish] == []
    # Every visible link that stays in the frame (the page's anchors, and its own entry in the
    # menu, which names the page itself): each keeps the page, and so the session.
    staying = frame.locator("a[href]:visible:not([target='_blank']):not([download])")
    hrefs = staying.evaluate_all("(as) => as.map((a) => a.getAttribute('href'))")
    itself = staying.evaluate_all("(as) => as.filter((a) => a.href === location.href.split('#')[0]).map((a) => a.getAttribute('href'))")
    assert len(itself) == 1, hrefs  # the menu's own entry
    page.evaluate(f"() => {{ {SCO}.contentWindow.kept = true; }}")
    for i in range(len(hrefs)):
        link = staying.nth(i)
        if link.is_visible():  # the menu's own entry closes the menu on a phone
            link.press("Enter")  # from the keyboard: the skip link is only on screen when focused
        assert page.evaluate(f"() => {SCO}.contentWindow.kept") is True, f"{hrefs[i]} replaced the page"
    assert page.evaluate(f"() => {SCO}.contentWindow.location.pathname").endswith("/module/index.html")
    assert [c for c in page.evaluate("() => window.calls") if c[0] in (init, finish)] == [[init, "true:0"]]
    # While the page is hidden (the learner is in the other tab) what it holds is committed.
    before = len(page.evaluate("() => window.calls"))
    page.evaluate(f"""() => {{ const d = {SCO}.contentDocument;
        Object.defineProperty(d, "visibilityState", {{configurable: true, get: () => "hidden"}});
        d.dispatchEvent(new Event("visibilitychange", {{bubbles: true}}));
        delete d.visibilityState; }}""")
    assert [c[0] for c in page.evaluate("() => window.calls")[before:]][-2:] == [
        "cmi.core.session_time" if version == "1.2" else "cmi.session_time", commit]

    box = frame.locator("#exercise-sequential-steps")
    box.get_by_label("Sequential steps for the RNN").fill("1000")
    box.get_by_label("Sequential steps for one self-attention layer").fill("1")
    box.get_by_role("button", name="Check").click()
    assert box.locator(".exercise-feedback").text_content() == "✓ Correct."

    # A reload of the frame, with this browser's copy gone: the progress comes from the LMS.
    page.evaluate(f"() => {{ const w = {SCO}.contentWindow; w.stale = true; w.localStorage.clear(); w.location.reload(); }}")
    assert sco_ready(page, 2) == 2 and lms_raw(page, version) == "22"
    assert check(frame, "#exercise-vanishing-fraction", "Largest fraction", "0.0015") == "✓ Correct."

    # A reload of the LMS page: the LMS finishes this launch and starts the next from its data.
    page.evaluate(f"() => {SCO}.contentWindow.localStorage.clear()")
    page.reload(wait_until="load")
    assert sco_ready(page, 3) == 3 and lms_raw(page, version) == "33"
    assert check(frame, "#exercise-context-value", "Context value", "2").startswith("✗")

    page.evaluate(f"() => {SCO}.remove()")  # the LMS closes the SCO
    calls = page.evaluate("() => window.calls")
    state = page.evaluate("() => window.lmsState()")
    context.close()
    assert guard.off_origin == [] and errors == []

    assert [i["id"] for i in interactions(state)] == [
        "exercise-context-value", "exercise-sequential-steps", "exercise-vanishing-fraction", "exercise-context-value"]
    # Two launches: each initialised once, never refused, and finished once, when it was left.
    api_calls = [c for c in calls if c[0] in (init, commit, finish)]
    assert [c for c in api_calls if c[0] == init] == [[init, "true:0"]] * 2
    assert [c for c in api_calls if c[0] == finish] == [[finish, "true:0"]] * 2
    assert all(c[1] == "true:0" for c in api_calls)
    assert [c[0] for c in api_calls if c[0] != commit] == [init, finish, init, finish]
    # session_time goes with every commit; "suspend" with every finish of an unfinished module.
    session_time = "cmi.core.session_time" if version == "1.2" else "cmi.session_time"
    exit_key = "cmi.core.exit" if version == "1.2" else "cmi.exit"
    last, previous = {}, None
    for element, value in calls:
        if element == commit:
            assert session_time in last, "a commit without a session_time"
            last.pop(session_time)
        elif element == finish:
            assert previous == commit and last[exit_key] == "suspend"  # the time went with that commit
        else:
            last[element] = value
        previous = element
    pattern = r"\d{4}:\d\d:\d\d\.\d\d" if version == "1.2" else r"PT(\d+H)?(\d+M)?\d+\.\d\dS"
    assert all(re.fullmatch(pattern, v) for e, v in calls if e == session_time)
    cmi = state["cmi"]
    score = cmi["core"]["score"] if version == "1.2" else cmi["score"]
    assert (score["raw"], score["min"], score["max"]) == ("33", "0", "100")
    if version == "1.2":
        assert cmi["core"]["lesson_status"] == "incomplete"
    else:
        assert (cmi["success_status"], cmi["completion_status"], cmi["score"]["scaled"]) == ("failed", "incomplete", "0.33")


# An LMS whose session for this launch has already ended before the page starts.
ENDED = """
  {global_name}.{init}("");
  {global_name}.{finish}("");
  window.calls.length = 0;
"""


@pytest.mark.browser
def test_a_session_that_has_ended_keeps_the_answers_for_the_next_launch(browser, package, lms_server):
    version, path = package
    folder, origin = lms_server
    init, commit, finish, _ = CALL_NAMES[version]
    harness(folder, version, path, extra=ENDED.replace("{init}", init).replace("{finish}", finish))
    context, guard = guarded_context(browser, origin)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{origin}/lms.html", wait_until="load")
    frame = page.frame_locator("#sco")
    sco_ready(page, 0)
    notice = frame.locator("#lms-notice")
    assert "already ended" in notice.text_content() and notice.text_content().count(".") == 1
    assert check(frame, "#exercise-context-value", "Context value", "1.9") == "✓ Correct."
    assert "1 of 9" in frame.locator(".exercise-summary").text_content()
    calls = page.evaluate("() => window.calls")
    assert [c[0] for c in calls] == [init]  # tried once, refused, and nothing after it
    assert not any(c[0].startswith("cmi.") for c in calls)

    # The next launch, in the same browser: the attempt made meanwhile reaches the LMS.
    harness(folder, version, path)
    page.goto(f"{origin}/lms.html", wait_until="load")
    sco_ready(page, 1)
    assert frame.locator("#lms-notice").count() == 0
    page.evaluate(f"() => {SCO}.remove()")
    state = page.evaluate("() => window.lmsState()")
    context.close()
    assert errors == [] and guard.off_origin == []
    got = interactions(state)
    assert [(i["id"], i["result"]) for i in got] == [("exercise-context-value", "correct")]
    assert lms_raw_of(state, version) == "11"


def lms_raw_of(state, version):
    return (state["cmi"]["core"]["score"] if version == "1.2" else state["cmi"]["score"])["raw"]
