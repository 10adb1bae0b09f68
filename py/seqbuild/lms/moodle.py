"""The Moodle XML question bank: numerical, calculated and essay questions."""
from xml.sax.saxutils import escape

from seqbuild.exercises import Exercise
from seqbuild.lms import MODULE
from seqbuild.lms.calculated import decimals_of, wildcards_of
from seqbuild.lms.markup import CODE_NOTE, field_name, field_prompt, lms_html, number_text


def text_el(tag: str, text: str, fmt: str | None = None) -> str:
    attr = f' format="{fmt}"' if fmt else ""
    return f"<{tag}{attr}><text>{escape(text)}</text></{tag}>"


def moodle_head(name: str, idnumber: str, question: str, feedback: str) -> str:
    return (text_el("name", name) + text_el("questiontext", question, "html") +
            text_el("generalfeedback", feedback, "html") +
            f"<defaultgrade>1</defaultgrade><penalty>0.3333333</penalty><hidden>0</hidden>"
            f"<idnumber>{escape(idnumber)}</idnumber>")


def moodle_numerical(ex: Exercise, k: int) -> str:
    a = ex.answers[k]
    return ('<question type="numerical">' +
            moodle_head(field_name(ex, k), f"{ex.id}-{k + 1}", lms_html(ex.statement) + field_prompt(ex, k),
                        lms_html(ex.solution)) +
            f'<answer fraction="100" format="moodle_auto_format"><text>{a.text}</text>'
            f'<feedback format="html"><text></text></feedback><tolerance>{number_text(a.tolerance)}</tolerance></answer>'
            "<unitgradingtype>0</unitgradingtype><unitpenalty>0.1000000</unitpenalty>"
            "<showunits>3</showunits><unitsleft>0</unitsleft></question>")


def moodle_calculated(ex: Exercise, k: int, spec: dict) -> str:
    def wildcard(name):
        parts = wildcards_of({name: ex.variables[name]})
        return ", ".join(f"{{{n}}}" for n in parts)
    question = lms_html(ex.statement, var_text=wildcard) + field_prompt(ex, k)
    feedback = ("<p>The worked solution uses the module's own numbers; yours follow the same steps.</p>" +
                lms_html(ex.solution, var_text=wildcard))
    is_figures = ex.id == "exercise-vanishing-fraction"
    answers = "".join(
        f'<answer fraction="100"><text>{escape(formula)}</text><tolerance>{number_text(tol)}</tolerance>'
        "<tolerancetype>2</tolerancetype>"
        f"<correctanswerformat>{2 if is_figures else 1}</correctanswerformat>"
        f"<correctanswerlength>{3 if is_figures else decimals_of([a.text for a in ex.answers])}</correctanswerlength>"
        '<feedback format="html"><text></text></feedback></answer>'
        for formula, tol in spec["fields"][k]["answers"])
    # The fields of one exercise are one question each; they share their datasets and Moodle's
    # synchronisation draws the same item for all of them, so a learner sees one set of numbers.
    shared = len(ex.answers) > 1
    definitions = []
    for name in spec["names"]:
        lo, hi, decimals = spec["ranges"][name]
        items = "".join(f"<dataset_item><number>{i + 1}</number><value>{number_text(wildcards_of(v['values'])[name])}</value></dataset_item>"
                        for i, v in enumerate(spec["items"]))
        definitions.append(
            f"<dataset_definition>{text_el('status', 'shared' if shared else 'private')}{text_el('name', name)}<type>calculated</type>"
            f"{text_el('distribution', 'uniform')}{text_el('minimum', number_text(lo))}"
            f"{text_el('maximum', number_text(hi))}{text_el('decimals', str(decimals))}"
            f"<itemcount>{len(spec['items'])}</itemcount><dataset_items>{items}</dataset_items>"
            f"<number_of_items>{len(spec['items'])}</number_of_items></dataset_definition>")
    return ('<question type="calculated">' +
            moodle_head(field_name(ex, k), f"{ex.id}-{k + 1}", question, feedback) +
            f"<synchronize>{int(shared)}</synchronize><single>0</single><answernumbering>abc</answernumbering>"
            "<shuffleanswers>0</shuffleanswers>" + text_el("correctfeedback", "") +
            text_el("partiallycorrectfeedback", "") + text_el("incorrectfeedback", "") + answers +
            "<unitgradingtype>0</unitgradingtype><unitpenalty>0.1000000</unitpenalty>"
            "<showunits>3</showunits><unitsleft>0</unitsleft>"
            f"<dataset_definitions>{''.join(definitions)}</dataset_definitions></question>")


def moodle_essay(ex: Exercise) -> str:
    code = ex.kind == "code"
    return ('<question type="essay">' +
            moodle_head(ex.title, ex.id, lms_html(ex.statement) + (f"<p>{CODE_NOTE}</p>" if code else ""), "") +
            f"<responseformat>{'monospaced' if code else 'editor'}</responseformat>"
            "<responserequired>1</responserequired><responsefieldlines>12</responsefieldlines>"
            "<minwordlimit></minwordlimit><maxwordlimit></maxwordlimit>"
            "<attachments>0</attachments><attachmentsrequired>0</attachmentsrequired>" +
            text_el("graderinfo", lms_html(ex.solution), "html") +
            text_el("responsetemplate", ex.starter, "plain_text" if code else "html") + "</question>")


def moodle_xml(items: list[Exercise], specs: dict) -> str:
    questions = [f'<question type="category">{text_el("category", "$course$/top/" + MODULE)}</question>']
    for ex in items:
        if not ex.numeric:
            questions.append(moodle_essay(ex))
        for k in range(len(ex.answers)):
            questions.append(moodle_calculated(ex, k, specs[ex.id]) if ex.id in specs else moodle_numerical(ex, k))
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n"
