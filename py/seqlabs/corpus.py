"""A seeded toy English corpus from a template grammar, for training word vectors.

The grammar, in short (every choice is drawn with the seeded generator):
- gendered people come in pairs (man/woman, king/queen, boy/girl, prince/princess, father/mother,
  son/daughter, brother/sister, husband/wife, uncle/aunt); a sentence about one of them refers
  back with he/his or she/her (the pronoun is flipped in 3% of sentences, as noise);
- royalty (king, queen, prince, princess) rule, wear crowns and live in palaces; commoners
  work, farm and live in villages and cities; the young (boy, girl, prince, princess, son,
  daughter) play and go to school, the adults work;
- animals (cat, dog, horse, cow, sheep, mouse) eat, sleep, run and are fed, with pets
  (cat, dog) kept at home; vehicles (car, truck, bus, tractor) and their parts (engine,
  carburetor, wheel, brake, tire) break and get repaired at a garage;
- places (city, village, farm, palace, garage, market, kingdom) appear in all of these;
- each sentence may get a random adjective and, with probability 0.1, a random filler word.
No sentence states which words are related: any structure in the learned vectors comes from
which words share contexts.
"""
import numpy as np

PAIRS = [("man", "woman"), ("king", "queen"), ("boy", "girl"), ("prince", "princess"),
         ("father", "mother"), ("son", "daughter"), ("brother", "sister"), ("husband", "wife"),
         ("uncle", "aunt")]
ROYAL = {"king", "queen", "prince", "princess"}
YOUNG = {"boy", "girl", "prince", "princess", "son", "daughter"}
ANIMALS = ["cat", "dog", "horse", "cow", "sheep", "mouse"]
PETS = ["cat", "dog"]
VEHICLES = ["car", "truck", "bus", "tractor"]
PARTS = ["engine", "carburetor", "wheel", "brake", "tire"]
ADJECTIVES = ["old", "tall", "kind", "quiet", "happy", "busy"]
FILLERS = ["today", "again", "slowly", "then", "also", "often"]

PERSON_TEMPLATES = [
    "the {adj} {w} said that {he} was tired",
    "the {w} and {his} {pet} walked to the {place}",
    "{he} is a {w} and {he} smiled",
    "the {w} told {his} friend a story",
    "the {w} lost {his} hat in the {place}",
]
ROYAL_TEMPLATES = [
    "the {w} ruled the kingdom and {he} wore the crown",
    "the {adj} {w} lived in the palace",
    "the {w} sat on the throne of the kingdom",
    "the crown of the {w} was gold",
]
COMMON_TEMPLATES = [
    "the {w} worked on the farm",
    "the {adj} {w} lived in the village",
    "the {w} sold bread at the market in the city",
]
YOUNG_TEMPLATES = ["the young {w} played in the garden", "the {w} went to school with {his} friend"]
ADULT_TEMPLATES = ["the {w} went to work early", "the {w} paid for the house"]
ANIMAL_TEMPLATES = [
    "the {adj} {a} ate the food", "the {a} slept in the barn", "the farmer fed the {a}",
    "the {a} ran across the field", "the {a} drank water from the bowl",
]
PET_TEMPLATES = ["the {a} slept on the sofa at home", "we fed the {a} in the kitchen",
                 "the {a} chased a ball in the garden"]
VEHICLE_TEMPLATES = [
    "the {v} needs a new {p}", "the mechanic repaired the {p} of the {v}",
    "the {p} of the {adj} {v} broke on the road", "the {v} stopped at the garage",
    "the {v} drove to the {place}", "a broken {p} made the {v} stop",
]
PLACES = ["city", "village", "market", "farm"]


def sentence(rng: np.random.Generator) -> list[str]:
    kind = rng.choice(["person", "person", "person", "animal", "vehicle"])
    adj = ADJECTIVES[rng.integers(len(ADJECTIVES))]
    place = PLACES[rng.integers(len(PLACES))]
    if kind == "person":
        male, female = PAIRS[rng.integers(len(PAIRS))]
        is_female = rng.random() < 0.5
        w = female if is_female else male
        if rng.random() < 0.03:
            is_female = not is_female
        he, his = ("she", "her") if is_female else ("he", "his")
        templates = list(PERSON_TEMPLATES)
        templates += ROYAL_TEMPLATES if w in ROYAL else COMMON_TEMPLATES
        templates += YOUNG_TEMPLATES if w in YOUNG else ADULT_TEMPLATES
        t = templates[rng.integers(len(templates))]
        text = t.format(w=w, adj=adj, he=he, his=his, pet=PETS[rng.integers(2)], place=place)
    elif kind == "animal":
        a = ANIMALS[rng.integers(len(ANIMALS))]
        templates = ANIMAL_TEMPLATES + (PET_TEMPLATES if a in PETS else [])
        text = templates[rng.integers(len(templates))].format(a=a, adj=adj)
    else:
        v, p = VEHICLES[rng.integers(len(VEHICLES))], PARTS[rng.integers(len(PARTS))]
        text = VEHICLE_TEMPLATES[rng.integers(len(VEHICLE_TEMPLATES))].format(v=v, p=p, adj=adj, place=place)
    words = text.split()
    if rng.random() < 0.1:
        words.insert(int(rng.integers(len(words) + 1)), FILLERS[rng.integers(len(FILLERS))])
    return words


def generate(n_sentences: int, seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [sentence(rng) for _ in range(n_sentences)]
