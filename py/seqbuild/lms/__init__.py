"""make lms: the module's exercises as native LMS quizzes, a cartridge of links and two PDFs.

    python -m seqbuild.lms site dist

writes into dist/:
- sequences-before-transformers-canvas-qti.zip   Canvas QTI 1.2, made with text2qti
- sequences-before-transformers-moodle.xml       Moodle XML question bank
- sequences-before-transformers.imscc            Common Cartridge 1.1 of web links
- sequences-before-transformers-worksheet.pdf    the exercises with answer lines
- sequences-before-transformers-answer-key.pdf   the exercises with answers and tolerances

Answers and tolerances come from the built page (seqbuild.exercises), new numbers and their
answers from the lab the page uses for them (seqlabs.variants), so nothing here is retyped.
One numeric question is made per answer field, named by the field's label. Every written bound
is read back and compared with the page's checker before a file is kept.

One module per concern: markup (statements in each target's markup), calculated (Moodle's
calculated questions from the variant lab), moodle, canvas, cartridge and paper; __main__ runs them.
"""
NAME = "sequences-before-transformers"
MODULE = "Module 5: Sequences Before Transformers"
