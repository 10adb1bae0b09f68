"""A seeded toy English -> French parallel corpus, with the gold word alignment of every pair.

The grammar (every choice drawn from the seeded generator):
- a sentence is one to three clauses joined by "and" / "but" (et / mais); a clause is a noun
  phrase, a verb, and for transitive verbs a second noun phrase, optionally followed by a
  prepositional phrase (in / on / under / behind / with + noun phrase);
- a noun phrase is a determiner that agrees in gender with the French noun (the -> le/la,
  a -> un/une), optionally one adjective that comes BEFORE the noun in both languages (small,
  big, pretty, good, new), the noun, and optionally one adjective that comes AFTER the noun in
  French but before it in English (red, black, green, white, blue, round, heavy, happy), so the
  adjective-noun pair swaps;
- or, for about one noun phrase in six, an institution name built from parts: the [region]
  [domain] [head], e.g. "the european economic area" -> "la zone economique europeenne", where
  both adjectives follow the head noun in French in reverse order; any region goes with any
  domain and any head, so each word of the name has to be read, not memorised;
- French adjectives agree with the noun's gender; accents are dropped to keep the vocabulary
  plain ASCII.
Every French token is aligned to exactly one English token (the grammar is one-to-one), and
each token has a word class (det, noun, adj, verb, prep, conj) for reporting.
"""
import itertools
from collections.abc import Iterator

import numpy as np

# english: (french, gender)
NOUNS = {
    "cat": ("chat", "m"), "dog": ("chien", "m"), "house": ("maison", "f"), "car": ("voiture", "f"),
    "book": ("livre", "m"), "table": ("table", "f"), "garden": ("jardin", "m"), "city": ("ville", "f"),
    "boy": ("garcon", "m"), "girl": ("fille", "f"), "horse": ("cheval", "m"), "street": ("rue", "f"),
    "window": ("fenetre", "f"), "door": ("porte", "f"), "bridge": ("pont", "m"), "letter": ("lettre", "f"),
    "friend": ("copain", "m"), "bottle": ("bouteille", "f"), "box": ("boite", "f"), "chair": ("chaise", "f"),
    "teacher": ("professeur", "m"), "train": ("train", "m"), "road": ("route", "f"), "hat": ("chapeau", "m"),
}
# english: (masculine, feminine)
PRE_ADJ = {"small": ("petit", "petite"), "big": ("grand", "grande"), "pretty": ("joli", "jolie"),
           "good": ("bon", "bonne"), "new": ("nouveau", "nouvelle")}
POST_ADJ = {"red": ("rouge", "rouge"), "black": ("noir", "noire"), "green": ("vert", "verte"),
            "white": ("blanc", "blanche"), "blue": ("bleu", "bleue"), "round": ("rond", "ronde"),
            "heavy": ("lourd", "lourde"), "happy": ("heureux", "heureuse")}
REGIONS = {"european": ("europeen", "europeenne"), "national": ("national", "nationale"),
           "regional": ("regional", "regionale"), "global": ("mondial", "mondiale"),
           "local": ("local", "locale")}
DOMAINS = {"economic": ("economique", "economique"), "social": ("social", "sociale"),
           "political": ("politique", "politique"), "cultural": ("culturel", "culturelle"),
           "financial": ("financier", "financiere"), "medical": ("medical", "medicale")}
HEADS = {"area": ("zone", "f"), "bank": ("banque", "f"), "council": ("conseil", "m"), "market": ("marche", "m"),
         "fund": ("fonds", "m"), "program": ("programme", "m"), "committee": ("comite", "m"),
         "court": ("cour", "f"), "network": ("reseau", "m")}
DETS = {"the": ("le", "la"), "a": ("un", "une")}
TRANSITIVE = {"sees": "voit", "likes": "aime", "follows": "suit", "finds": "trouve", "watches": "regarde",
              "takes": "prend", "opens": "ouvre", "wants": "veut"}
INTRANSITIVE = {"sleeps": "dort", "runs": "court", "waits": "attend", "sings": "chante", "works": "travaille"}
PREPS = {"in": "dans", "on": "sur", "under": "sous", "behind": "derriere", "with": "avec"}
CONJS = {"and": "et", "but": "mais"}


class Builder:
    """Grows an aligned pair token by token: French tokens point at English positions."""

    def __init__(self):
        self.en, self.fr, self.links, self.fr_class = [], [], [], []

    def english(self, word):
        self.en.append(word)
        return len(self.en) - 1

    def french(self, word, en_pos, cls):
        self.links.append((len(self.fr), en_pos))
        self.fr.append(word)
        self.fr_class.append(cls)


def choose(rng, table):
    keys = list(table)
    return keys[int(rng.integers(len(keys)))]


def noun_phrase(b: Builder, rng):
    det = choose(rng, DETS)
    if rng.random() < 1 / 6:  # an institution name: the [region] [domain] head
        region, domain, head = choose(rng, REGIONS), choose(rng, DOMAINS), choose(rng, HEADS)
        fr_head, g = HEADS[head]
        k = 0 if g == "m" else 1
        pd, pr, pdom, ph = b.english(det), b.english(region), b.english(domain), b.english(head)
        b.french(DETS[det][k], pd, "det")
        b.french(fr_head, ph, "noun")
        b.french(DOMAINS[domain][k], pdom, "adj")
        b.french(REGIONS[region][k], pr, "adj")
        return
    noun = choose(rng, NOUNS)
    fr_noun, g = NOUNS[noun]
    k = 0 if g == "m" else 1
    pre = choose(rng, PRE_ADJ) if rng.random() < 0.3 else None
    post = choose(rng, POST_ADJ) if rng.random() < 0.45 else None
    pd = b.english(det)
    ppre = b.english(pre) if pre else None
    ppost = b.english(post) if post else None
    pn = b.english(noun)
    b.french(DETS[det][k], pd, "det")
    if pre:
        b.french(PRE_ADJ[pre][k], ppre, "adj")
    b.french(fr_noun, pn, "noun")
    if post:
        b.french(POST_ADJ[post][k], ppost, "adj")


def clause(b: Builder, rng):
    noun_phrase(b, rng)
    if rng.random() < 0.25:
        verb = choose(rng, INTRANSITIVE)
        b.french(INTRANSITIVE[verb], b.english(verb), "verb")
    else:
        verb = choose(rng, TRANSITIVE)
        b.french(TRANSITIVE[verb], b.english(verb), "verb")
        noun_phrase(b, rng)
    if rng.random() < 0.35:
        prep = choose(rng, PREPS)
        b.french(PREPS[prep], b.english(prep), "prep")
        noun_phrase(b, rng)


def pair(rng, max_clauses=3) -> dict:
    b = Builder()
    clauses = 1 + int(rng.integers(max_clauses))
    for i in range(clauses):
        if i > 0:
            conj = choose(rng, CONJS)
            b.french(CONJS[conj], b.english(conj), "conj")
        clause(b, rng)
    return {"en": b.en, "fr": b.fr, "links": b.links, "fr_class": b.fr_class}


def stream(seed: int, max_clauses: int = 3) -> Iterator[dict]:
    """generate()'s pairs one at a time, without end: a search stops as soon as it has found."""
    rng = np.random.default_rng(seed)
    while True:
        yield pair(rng, max_clauses)


def generate(n_pairs: int, seed: int, max_clauses: int = 3) -> list[dict]:
    return list(itertools.islice(stream(seed, max_clauses), n_pairs))


def english_words() -> set[str]:
    return set(NOUNS) | set(PRE_ADJ) | set(POST_ADJ) | set(REGIONS) | set(DOMAINS) | set(HEADS) | set(DETS) \
        | set(TRANSITIVE) | set(INTRANSITIVE) | set(PREPS) | set(CONJS)
