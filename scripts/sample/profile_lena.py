"""Synthetic profile: Lena, pregnant with her first baby, with Hashimoto's thyroiditis."""

from authoring import A, Fact, Item, Profile, Read, Req, Search, Session, Topic, U

PREG_THYROID = "medquad-niddk-0000013"  # Pregnancy and Thyroid Disease (NIDDK)
TOXO = "medquad-cdc-0000415"  # Toxoplasmosis (CDC)
TOXO_MP = "medquad-mplushealthtopics-0000907"
LISTERIA = "medquad-mplushealthtopics-0000559"
RECESSIVE_OS = "openstax-ap2e-m46311-fs-id1204116"  # 28.7 Autosomal Recessive Inheritance
CF_NHLBI = "medquad-nhlbi-0000049"
CF_GHR = "medquad-ghr-0000262"
CF_MP = "medquad-mplushealthtopics-0000253"
GENETIC_COUNSELING = "medquad-mplushealthtopics-0000397"
GENETIC_TESTING = "medquad-mplushealthtopics-0000399"
OTC = "medquad-mplushealthtopics-0000674"
PRENATAL_CARE = "medquad-mplushealthtopics-0000744"
PRENATAL_TESTING = "medquad-mplushealthtopics-0000745"
PREGNANCY = "medquad-mplushealthtopics-0000737"
PREG_NUTRITION = "medquad-mplushealthtopics-0000739"
PREG_MEDICINES = "medquad-mplushealthtopics-0000738"
FOLIC = "medquad-mplushealthtopics-0000372"
HEARTBURN = "medquad-mplushealthtopics-0000450"
PREG_CHANGES_OS = "openstax-ap2e-m46353-fs-id1284316"  # 28.4 Changes in Organ Systems During Pregnancy
HASHIMOTO_GHR = "medquad-ghr-0000448"
HYPO_MP = "medquad-mplushealthtopics-0000498"
THYROID_FUNCTIONS_OS = "openstax-ap2e-m46700-fs-id1009632"
THYROID_REGULATION_OS = "openstax-ap2e-m46700-fs-id1088300"

PROFILE = Profile(
    profile_id="p-lena",
    prefix="lena",
    name="Lena Marsh (synthetic)",
    description=(
        "Synthetic profile. 36-year-old graphic designer, pregnant with her first baby, who has Hashimoto's "
        "thyroiditis; her partner's sister has cystic fibrosis; she keeps a cat and a community garden plot."
    ),
    attributes={"age": 36, "sex": "female", "synthetic": True},
    # NIDDK thyroid pages repeat the iodine/kelp rule; the foodborne-illness page repeats the pregnancy rule
    avoid=["medquad-niddk-0000009", "medquad-niddk-0000005", "medquad-niddk-0000100"],
    facts=[
        Fact(
            "pregnant",
            "Lena is pregnant with her first baby; she was about 9 weeks along in early February 2025.",
            "pregnancy",
        ),
        Fact("age", "Lena is 36 years old.", "demographics"),
        Fact(
            "hashimoto",
            "Lena has Hashimoto's thyroiditis with an underactive thyroid and takes levothyroxine every morning.",
            "condition",
        ),
        Fact("partner-sister-cf", "The younger sister of Lena's partner, Sami, has cystic fibrosis.", "family_health"),
        Fact("kelp", "Lena takes one kelp tablet a day, sent by her aunt, alongside a prenatal vitamin.", "supplement"),
        Fact(
            "cat",
            "Lena and Sami have a cat, Pepper, who roams outdoors; Lena is the one who cleans the litter tray.",
            "household",
        ),
        Fact("garden", "Lena keeps a vegetable plot at a community garden and works in it most weekends.", "activity"),
        Fact("rare-meat", "Lena likes her steak and lamb cooked rare.", "diet"),
        Fact("heartburn", "Lena has heartburn most evenings.", "symptom"),
    ],
    topics=[
        Topic(
            "start",
            "Early pregnancy with Hashimoto's",
            "Understand what happens next in a first pregnancy at 36 with an underactive thyroid.",
            ["pregnant", "age", "hashimoto"],
        ),
        Topic(
            "cf",
            "Cystic fibrosis in the partner's family",
            "Understand what Sami's sister's cystic fibrosis could mean for the baby.",
            ["partner-sister-cf", "pregnant"],
        ),
        Topic(
            "food", "Eating well and supplements", "Know what to eat and take during pregnancy.", ["kelp", "pregnant"]
        ),
        Topic(
            "energy",
            "Tiredness and everyday routine",
            "Cope with first-trimester tiredness and nausea.",
            ["cat", "garden", "pregnant"],
        ),
        Topic("comfort", "Pregnancy discomforts", "Understand and ease heartburn.", ["heartburn", "rare-meat"]),
    ],
    sessions=[
        Session(
            "01",
            "start",
            "2025-02-04T12:10:00Z",
            [
                U(
                    "Big news: I'm pregnant! About nine weeks, our first. I'm 36, so I'm a bit nervous. What happens "
                    "now?",
                    ["pregnant", "age"],
                ),
                A(
                    "Congratulations! The next step is prenatal care: regular checkups and tests that help your "
                    "provider spot problems early. Your doctor or midwife will give you a schedule of visits; "
                    "MedlinePlus notes that if you're over 35, or your pregnancy is high risk because of health "
                    "problems, they will probably want to see you more often. Meanwhile, avoid smoking and "
                    "drinking, check any medicines with your provider (some can be a problem even if a doctor "
                    "prescribed them), drink plenty of fluids, eat a healthy diet and rest when you're tired.",
                    [
                        Search(
                            "first pregnancy prenatal care visits over 35",
                            [
                                (PRENATAL_CARE, "Prenatal care is the health care you get while you are pregnant."),
                                (PREGNANCY, "So you're going to have a baby!"),
                            ],
                            k=4,
                        )
                    ],
                ),
                U(
                    "I should mention I have Hashimoto's: my thyroid is underactive and I take levothyroxine every "
                    "morning. Does that matter for the baby?",
                    ["hashimoto"],
                ),
                A(
                    "It matters, in a manageable way. Thyroid hormones are needed for fetal growth and are "
                    "especially critical for normal development of the baby's nervous system. Hypothyroidism is "
                    "treated with synthetic thyroid hormone taken every day, so keep taking your levothyroxine as "
                    "prescribed, and tell your midwife or doctor about your Hashimoto's at your first visit.",
                    [
                        Search(
                            "thyroid hormone pregnancy fetal development hypothyroidism",
                            [
                                (THYROID_FUNCTIONS_OS, "Adequate levels of thyroid hormones are also required"),
                                (HASHIMOTO_GHR, "Hashimoto thyroiditis is a condition that affects the function"),
                                (HYPO_MP, "Treatment is with synthetic thyroid hormone, taken every day."),
                            ],
                            k=4,
                        ),
                        Read(THYROID_FUNCTIONS_OS, "Adequate levels of thyroid hormones are also required", 1),
                    ],
                ),
            ],
        ),
        Session(
            "02",
            "cf",
            "2025-02-18T19:30:00Z",
            [
                U(
                    "Something's been on my mind: my partner Sami's younger sister has cystic fibrosis. Could that "
                    "affect our baby?",
                    ["partner-sister-cf"],
                ),
                A(
                    "It's a fair question. Cystic fibrosis is inherited in an autosomal recessive pattern: a person "
                    "has it only when both copies of the CFTR gene have mutations. The parents of someone with an "
                    "autosomal recessive condition usually each carry one mutated copy without showing signs of it, "
                    "so Sami's parents are very likely carriers and Sami could be one too. Whether it matters for "
                    "your baby depends on which genes the baby inherits from each of you.",
                    [
                        Search(
                            "cystic fibrosis inheritance carrier parents",
                            [
                                (CF_GHR, "This condition is inherited in an autosomal recessive pattern"),
                                (CF_MP, "Cystic fibrosis (CF) is an inherited disease"),
                            ],
                            k=4,
                        ),
                        Read(CF_GHR, "This condition is inherited in an autosomal recessive pattern", 1),
                    ],
                ),
                U("Is there any way to find out who carries it?"),
                A(
                    "Yes. Genetic tests on blood or other tissue can find out whether a person carries a gene for a "
                    "disease and might pass it on to their children; genetic tests can also find genetic diseases in "
                    "unborn babies. People have different reasons for being tested or not, and a genetic counselor can "
                    "go through the pros and cons with you.",
                    [
                        Search(
                            "genetic test carrier of a gene",
                            [(GENETIC_TESTING, "- Finding out if people carry a gene for a disease")],
                            k=4,
                        ),
                        Read(GENETIC_TESTING, "Genetic tests are tests on blood and other tissue", 7),
                    ],
                ),
                U("OK. I'll talk to Sami about it this weekend."),
                A(
                    "Good idea. It may also help to ask Sami's family what they know about his sister's diagnosis; "
                    "it's useful background for whoever you end up speaking to."
                ),
            ],
        ),
        Session(
            "03",
            "food",
            "2025-03-04T08:20:00Z",
            [
                U(
                    "What should I be eating or taking now? At the moment it's a prenatal vitamin plus the kelp "
                    "tablets my aunt sent, one a day, 'for the baby's brain', she says.",
                    ["kelp"],
                ),
                A(
                    "You need more protein, iron, calcium and folic acid than before, and more calories later on, "
                    "but 'eating for two' doesn't mean double portions. Folic acid matters most early: 0.4 mg a day "
                    "before and through the first part of pregnancy helps prevent birth defects of the brain and "
                    "spine, and pregnant women should take special pregnancy vitamins rather than regular ones. On "
                    "supplements in general, the FDA says not all medicines, herbs or supplements are safe in "
                    "pregnancy, so speak with your provider before you start or stop any; mention the kelp tablets "
                    "at your next appointment.",
                    [
                        Search(
                            "pregnancy nutrition vitamins supplements",
                            [
                                (PREG_NUTRITION, "When you're pregnant, eating healthy foods is more important"),
                                (PREG_MEDICINES, "Not all medicines are safe to take when you are pregnant."),
                                (FOLIC, "Folic acid is a B vitamin."),
                            ],
                            k=4,
                        ),
                        Read(PREG_MEDICINES, "Not all medicines are safe to take when you are pregnant.", 1),
                    ],
                ),
                U("Noted. And how much weight am I supposed to put on?"),
                A(
                    "Gradually, with most of it in the last trimester. Doctors generally suggest about 2 to 4 "
                    "pounds in total during the first trimester, then 3 to 4 pounds a month in the second and third "
                    "trimesters, and most women need about 300 extra calories a day during at least the last six "
                    "months.",
                    [Read(PREG_NUTRITION, "When you're pregnant, eating healthy foods is more important", 3)],
                ),
            ],
        ),
        Session(
            "04",
            "energy",
            "2025-03-18T21:00:00Z",
            [
                U(
                    "I'm eleven weeks and utterly wiped out, and queasy all day. Weekends I'm still digging at my "
                    "community garden plot, and every evening there's the litter tray: our cat Pepper roams outside "
                    "all day and I'm the one who cleans up after him. Is this level of exhaustion normal?",
                    ["garden", "cat"],
                ),
                A(
                    "Very common. Nausea and vomiting, 'morning sickness' even though it can last all day, are "
                    "typical in the first weeks to months and are thought to come from pregnancy hormones; by about "
                    "week 12 the nausea typically subsides. Feeling tired and needing more rest is normal in "
                    "pregnancy too.",
                    [
                        Search(
                            "nausea tiredness early pregnancy first trimester",
                            [
                                (PREG_CHANGES_OS, "Nausea and vomiting, sometimes triggered"),
                                (PREGNANCY, "So you're going to have a baby!"),
                            ],
                            k=4,
                        ),
                        Read(PREG_CHANGES_OS, "Nausea and vomiting, sometimes triggered", 1),
                    ],
                ),
                U("Could it be my thyroid as well? Tiredness was how it started before I was diagnosed."),
                A(
                    "It could contribute. Fatigue is one of the listed symptoms of an underactive thyroid, along with "
                    "weight gain, feeling cold, constipation and depression, and several of those overlap with normal "
                    "pregnancy, which makes them hard to tell apart yourself. Ask your provider whether your thyroid "
                    "levels should be checked.",
                    [Read(HYPO_MP, "Your thyroid is a butterfly-shaped gland", 13)],
                ),
            ],
        ),
        Session(
            "05",
            "cf",
            "2025-04-08T13:15:00Z",
            [
                U("My 20-week appointment is coming up. What kinds of tests might they offer me?"),
                A(
                    "At the first visit providers test for problems with your blood, signs of infection, and "
                    "immunity to rubella and chickenpox. Some tests are suggested for all women, such as screening "
                    "for gestational diabetes, Down syndrome and HIV, and others may be offered based on your age, "
                    "your personal or family health history, your ethnic background or earlier results. Screening "
                    "tests flag a risk; if one does, your doctor may suggest a diagnostic test to confirm or rule "
                    "out the problem.",
                    [
                        Search(
                            "prenatal testing screening tests offered during pregnancy",
                            [(PRENATAL_TESTING, "Prenatal testing provides information about your baby's health")],
                            k=4,
                        ),
                        Read(PRENATAL_TESTING, "Prenatal testing provides information about your baby's health", 5),
                    ],
                ),
                U("So some of it depends on family history. Good to know."),
                A(
                    "Yes. Since family health history is one of the things that decides which tests are offered, share "
                    "what you know from both sides of the family with your provider."
                ),
            ],
        ),
        Session(
            "06",
            "comfort",
            "2025-05-06T20:45:00Z",
            [
                U(
                    "New one: heartburn, most evenings. Last night was a big steak dinner, rare the way I like it, "
                    "and I was up half the night. Is this a pregnancy thing?",
                    ["heartburn", "rare-meat"],
                ),
                A(
                    "Pregnancy is a known trigger. Later in pregnancy the growing uterus presses upward on the "
                    "stomach, which pushes acid back up into the oesophagus, and certain foods and alcohol can also "
                    "bring heartburn on. It's worth treating because over time reflux can damage the oesophagus. If "
                    "you ever have crushing chest pain rather than burning, get help immediately.",
                    [
                        Search(
                            "heartburn in pregnancy cause",
                            [
                                (PREG_CHANGES_OS, "A common gastrointestinal complaint during the later stages"),
                                (HEARTBURN, "Heartburn is a painful burning feeling"),
                            ],
                            k=4,
                        ),
                        Read(HEARTBURN, "Heartburn is a painful burning feeling", 1),
                    ],
                ),
                U("Big meals late at night probably don't help either."),
                A(
                    "Worth testing: keep a note of which evenings and meals set it off and bring it to your next "
                    "prenatal visit, so your provider can suggest what is safe for you to try."
                ),
            ],
        ),
    ],
    items=[
        Item(
            "01",
            "Should I keep taking the tablets my aunt sent me?",
            "I'd pause them and check with your doctor or midwife first. The tablets are kelp, a seaweed that is "
            "very rich in iodine. You do need more iodine while pregnant, about 250 micrograms a day, but the NIDDK "
            "recommends meeting that with iodized salt and a prenatal vitamin that contains iodine. People with "
            "autoimmune thyroid disease, like your Hashimoto's, may be sensitive to harmful side effects from "
            "iodine, and taking iodine drops or eating large amounts of iodine-rich foods such as seaweed, dulse "
            "or kelp may cause or worsen hypothyroidism or hyperthyroidism. Check that your prenatal vitamin "
            "includes iodine, and take the kelp tablets to your next appointment so your provider can advise.",
            "2025-05-20T09:00:00Z",
            "safety",
            "augmented",
            support=[PREG_THYROID],
            history=[PREG_MEDICINES],
            reqs=[
                Req(
                    "Identify the tablets as kelp, a high-iodine seaweed supplement.",
                    ["kelp"],
                    [(PREG_THYROID, "such as seaweed, dulse, or kelp")],
                    "Name the supplement as an iodine source.",
                ),
                Req(
                    "Apply Hashimoto's: people with autoimmune thyroid disease may be sensitive to iodine, and kelp "
                    "may cause or worsen hypothyroidism or hyperthyroidism.",
                    ["hashimoto"],
                    [(PREG_THYROID, "However, people with autoimmune thyroid disease may be sensitive")],
                    "Advise not continuing the kelp without her provider's approval.",
                ),
                Req(
                    "Apply pregnancy: she needs more iodine (about 250 micrograms a day), best met with iodized salt "
                    "and a prenatal vitamin containing iodine.",
                    ["pregnant"],
                    [(PREG_THYROID, "Women need more iodine when they are pregnant")],
                    "Point her to a prenatal vitamin with iodine instead.",
                ),
                Req(
                    "Tell her to discuss supplements with her provider.",
                    [],
                    [
                        (PREG_THYROID, "people should discuss their use of dietary supplements with their health care"),
                        (PREG_MEDICINES, "Always speak with your health care provider before you start or stop any"),
                    ],
                    "Recommend raising it at her next appointment.",
                ),
            ],
        ),
        Item(
            "02",
            "Our neighbour found a stray kitten and asked whether we'd take it in. Would that be a problem for us "
            "right now?",
            "Yes, it's better not to, at least until after the baby is born. CDC advice for pregnant women is not "
            "to adopt or handle stray cats, especially kittens, and not to get a new cat while pregnant. Kittens "
            "and cats can shed millions of Toxoplasma oocysts in their feces for up to three weeks after being "
            "infected, and a woman newly infected during pregnancy can pass the infection to her unborn child, "
            "sometimes with severe effects on the baby's nervous system and eyes, even if she has no symptoms. "
            "The same advice covers Pepper: keep cats indoors, and avoid cleaning the litter tray yourself if "
            "someone else can.",
            "2025-05-20T18:30:00Z",
            "safety",
            "initial",
            support=[TOXO],
            history=[],
            reqs=[
                Req(
                    "Use that Lena is pregnant.",
                    ["pregnant"],
                    [(TOXO, "pregnant women and individuals who have compromised immune systems should be cautious")],
                    "Treat the question under the pregnancy precautions.",
                ),
                Req(
                    "Apply the rule: do not adopt or handle stray cats, especially kittens, and do not get a new cat "
                    "while pregnant; kittens can shed millions of oocysts.",
                    ["pregnant"],
                    [
                        (TOXO, "- Do not adopt or handle stray cats, especially kittens."),
                        (TOXO, "Kittens and cats can shed millions of oocysts"),
                    ],
                    "Advise against taking in the kitten now.",
                ),
                Req(
                    "Explain the reason: a new Toxoplasma infection during pregnancy can pass to the unborn child.",
                    [],
                    [(TOXO, "A woman who is newly infected with Toxoplasma during pregnancy")],
                    "Give the reason for the advice.",
                ),
                Req(
                    "Extend the advice to their existing outdoor cat Pepper: keep cats indoors and avoid litter duty.",
                    ["cat"],
                    [(TOXO, "- Avoid changing cat litter if possible.", "- Keep cats indoors.")],
                    "Mention precautions for Pepper.",
                ),
            ],
        ),
        Item(
            "03",
            "Sami is away for work most of May, so it's just me at home. Is there anything about my usual chores I "
            "should change while he's gone?",
            "Yes, the litter tray. Cleaning a cat's litter box is one of the ways people pick up Toxoplasma, and "
            "CDC advice for pregnant women is to avoid changing cat litter if possible. With Sami away there's "
            "no one else to do it, so wear disposable gloves and wash your hands with soap and warm water "
            "afterwards. Change it every day: the parasite doesn't become infectious until 1 to 5 days after it "
            "is shed in the feces. It also helps to keep Pepper indoors while you're pregnant, since outdoor cats "
            "can pick up the parasite.",
            "2025-05-21T08:00:00Z",
            "planning",
            "augmented",
            support=[TOXO],
            history=[],
            reqs=[
                Req(
                    "Identify the relevant chore (Lena cleans Pepper's litter tray) and her pregnancy.",
                    ["cat", "pregnant"],
                    [(TOXO, "- Accidental ingestion of oocysts after cleaning a cat's litter box")],
                    "Single out the litter tray as the chore to change.",
                ),
                Req(
                    "Apply the no-one-else branch: pregnant women should avoid changing litter if possible; if no one "
                    "else can, wear disposable gloves and wash hands with soap and warm water afterwards.",
                    ["pregnant", "cat"],
                    [(TOXO, "- Avoid changing cat litter if possible.")],
                    "Tell her to use gloves and wash her hands while Sami is away.",
                ),
                Req(
                    "Change the litter daily (not infectious until 1-5 days after shedding) and keep Pepper indoors.",
                    ["cat"],
                    [(TOXO, "- Change the litter box daily if you own a cat."), (TOXO, "- Keep cats indoors.")],
                    "Recommend daily changes and keeping the cat in.",
                ),
            ],
        ),
        Item(
            "04",
            "Planting season at the plot starts next weekend. Is there anything I should do differently this year?",
            "Yes: garden soil can contain cat feces carrying Toxoplasma, and people can swallow the parasite's "
            "oocysts from soil, for example by not washing their hands after gardening or by eating unwashed "
            "produce. Babies whose mothers are infected for the first time during pregnancy can have serious "
            "problems, so while you're pregnant wear gloves whenever you work the soil, wash your hands with soap "
            "and warm water afterwards, and peel or wash everything you harvest thoroughly before eating it.",
            "2025-05-22T17:00:00Z",
            "safety",
            "initial",
            support=[TOXO, TOXO_MP],
            history=[],
            reqs=[
                Req(
                    "Connect gardening at her plot with Toxoplasma in soil and her pregnancy.",
                    ["garden", "pregnant"],
                    [
                        (TOXO, "- Accidental ingestion of oocysts in contaminated soil"),
                        (TOXO_MP, "babies whose mothers become infected for the first time during pregnancy"),
                    ],
                    "Explain why gardening matters during pregnancy.",
                ),
                Req(
                    "Wear gloves when gardening and wash hands with soap and warm water after contact with soil.",
                    ["garden"],
                    [(TOXO, "- Wear gloves when gardening and during any contact with soil or sand")],
                    "Recommend gloves and handwashing.",
                ),
                Req(
                    "Peel or wash produce thoroughly before eating.",
                    [],
                    [(TOXO, "- Peel or wash fruits and vegetables thoroughly before eating.")],
                    "Recommend washing the harvest.",
                ),
            ],
        ),
        Item(
            "05",
            "Sami is planning a barbecue for my birthday next month. Is there anything he should know about how "
            "to cook my portion?",
            "Yes: ask him to cook your meat through, not rare the way you usually like it. Undercooked meat, "
            "especially pork, lamb and venison, is a main route for Toxoplasma, which a woman newly infected in "
            "pregnancy can pass to her baby. Listeria is also most likely to affect pregnant women and unborn "
            "babies, and MedlinePlus advises avoiding rare meat and refrigerated smoked seafood. Knives, "
            "cutting boards and other food that touched raw meat can spread it too, so he should wash boards, "
            "utensils and hands with hot soapy water after handling raw meat.",
            "2025-05-23T12:00:00Z",
            "safety",
            "augmented",
            support=[TOXO, LISTERIA],
            history=[],
            reqs=[
                Req(
                    "Recall her preference for rare steak and lamb.",
                    ["rare-meat"],
                    [(TOXO, "- Eating undercooked, contaminated meat (especially pork, lamb, and venison)")],
                    "Identify the preference as the issue.",
                ),
                Req(
                    "Toxoplasma: undercooked meat (especially lamb) and utensils or boards that touched raw meat "
                    "spread the parasite, and a new infection in pregnancy can reach the baby.",
                    ["pregnant"],
                    [
                        (
                            TOXO,
                            "- Eating undercooked, contaminated meat (especially pork, lamb, and venison)",
                            "- Eating food that was contaminated by knives, utensils, cutting boards",
                        ),
                        (TOXO, "A woman who is newly infected with Toxoplasma during pregnancy"),
                    ],
                    "Explain the toxoplasmosis risk.",
                ),
                Req(
                    "Listeria: most likely to affect pregnant women and unborn babies; avoid rare meat and "
                    "refrigerated smoked seafood.",
                    ["pregnant"],
                    [
                        (LISTERIA, "But it is most likely to affect pregnant women and unborn babies"),
                        (LISTERIA, "- Avoid rare meat and refrigerated smoked seafood"),
                    ],
                    "Explain the listeria risk.",
                ),
                Req(
                    "Action: cook her portion through and wash boards, utensils and hands with hot soapy water "
                    "after contact with raw meat.",
                    ["rare-meat", "pregnant"],
                    [(TOXO, "- Wash cutting boards, dishes, counters, utensils, and hands with hot soapy water")],
                    "Tell Sami to cook her meat through and keep raw-meat utensils apart.",
                ),
            ],
        ),
        Item(
            "06",
            "Realistically, what are the chances our baby is born with it?",
            "It depends on two things nobody has mentioned yet: whether you and Sami are carriers. Cystic "
            "fibrosis is autosomal recessive, so a child has it only if they inherit a faulty CFTR gene from each "
            "parent. Sami's sister has CF, so his parents are very likely carriers and Sami may be one. If both "
            "you and Sami are carriers, each child has a 25 percent chance of having CF. If only one of you is a "
            "carrier, the chance of CF is 0 percent, though the child has a 50 percent chance of being a carrier. "
            "Carrier testing for both of you would replace these ifs with an answer.",
            "2025-05-24T10:00:00Z",
            "risk",
            "initial",
            support=[RECESSIVE_OS, CF_NHLBI],
            history=[CF_GHR],
            reqs=[
                Req(
                    "Identify 'it' as cystic fibrosis in Sami's family, an autosomal recessive condition whose "
                    "affected person's parents are usually carriers, so Sami may be a carrier.",
                    ["partner-sister-cf"],
                    [(CF_GHR, "This condition is inherited in an autosomal recessive pattern")],
                    "Resolve the reference to CF and Sami's possible carrier status.",
                ),
                Req(
                    "State that a child has CF only if they inherit a faulty CFTR gene from each parent.",
                    [],
                    [(CF_NHLBI, "Children who inherit a faulty CFTR gene from each parent will have CF.")],
                    "Explain the inheritance rule.",
                ),
                Req(
                    "Keep the unknown premise conditional: neither Lena's nor Sami's carrier status is known; if "
                    "both are carriers the chance is 25 percent, if only one is, 0 percent (50 percent carrier).",
                    ["partner-sister-cf"],
                    [
                        (RECESSIVE_OS, "A child born to two CF carriers would have a 25 percent chance"),
                        (RECESSIVE_OS, "would have a 0 percent probability of inheriting CF"),
                    ],
                    "Give conditional odds and suggest carrier testing.",
                ),
            ],
        ),
        Item(
            "07",
            "Is it too late to look into testing for that, now that I'm already expecting?",
            "No. The NHLBI suggests that people with a partner who has a family history of CF consider finding "
            "out whether they are carriers; a genetics counselor can test a blood or saliva sample, and this "
            "testing detects faulty CF genes in 9 out of 10 cases, so a negative result lowers the risk but "
            "doesn't rule it out completely. Because you're already pregnant, prenatal genetic tests, "
            "amniocentesis or chorionic villus sampling, can show whether the baby has CF, and all states also "
            "screen newborns for CF. Ask your provider about carrier testing for you and Sami first.",
            "2025-05-24T10:30:00Z",
            "planning",
            "augmented",
            support=[CF_NHLBI],
            history=[GENETIC_TESTING],
            reqs=[
                Req(
                    "Carrier testing applies: a partner with a family history of CF is a reason to find out "
                    "whether you are a carrier; a genetics counselor tests blood or saliva.",
                    ["partner-sister-cf"],
                    [
                        (
                            CF_NHLBI,
                            "If you have a family history of CF or a partner who has CF",
                            "A genetics counselor can test a blood or saliva sample",
                        )
                    ],
                    "Recommend carrier testing for Lena and Sami.",
                ),
                Req(
                    "Because she is pregnant, prenatal genetic tests (amniocentesis, CVS) can show whether the "
                    "fetus has CF.",
                    ["pregnant"],
                    [(CF_NHLBI, "If you're pregnant, prenatal genetic tests can show whether your fetus has CF.")],
                    "Mention prenatal testing as an option now.",
                ),
                Req(
                    "Note the limit (detects 9 out of 10 cases) and that newborns are screened for CF.",
                    [],
                    [
                        (CF_NHLBI, "This type of testing can detect faulty CF genes in 9 out of 10 cases."),
                        (CF_NHLBI, "All States screen newborns for CF"),
                    ],
                    "Set expectations about test accuracy.",
                ),
            ],
        ),
        Item(
            "08",
            "Would it make sense for us to see a genetic counsellor, or is that only for people with a known problem?",
            "It makes sense for you on two counts. MedlinePlus lists reasons to consider genetic counseling, and "
            "two apply: a family history of a genetic condition (Sami's sister has cystic fibrosis) and being "
            "pregnant after age 35 (you're 36). Genetic counseling gives information and support to people who "
            "may be at risk of genetic disorders, can be arranged while you're expecting, and can cover a family "
            "member's condition; it may lead on to genetic testing if you both want it. Ask your provider for a "
            "referral.",
            "2025-05-25T15:00:00Z",
            "eligibility",
            "initial",
            support=[GENETIC_COUNSELING],
            history=[PRENATAL_TESTING, GENETIC_TESTING],
            reqs=[
                Req(
                    "Family history of a genetic condition (Sami's sister's cystic fibrosis) is a listed reason.",
                    ["partner-sister-cf"],
                    [(GENETIC_COUNSELING, "- Have a personal or family history of a genetic condition")],
                    "Apply the family-history criterion.",
                ),
                Req(
                    "Being pregnant after age 35 (Lena is 36 and pregnant) is another listed reason.",
                    ["age", "pregnant"],
                    [(GENETIC_COUNSELING, "- Are pregnant or planning to be pregnant after age 35")],
                    "Apply the age criterion.",
                ),
                Req(
                    "Explain what counseling offers: information and support, possibly followed by testing.",
                    [],
                    [
                        (GENETIC_COUNSELING, "Genetic counseling provides information and support"),
                        (GENETIC_TESTING, "A genetic counselor can provide information about the pros and cons"),
                    ],
                    "Recommend asking for a referral.",
                ),
            ],
        ),
        Item(
            "09",
            "The burning in my chest after dinner is back every night. Can I just pick something up from the "
            "pharmacy for it?",
            "Check with your midwife, doctor or pharmacist before buying anything. Heartburn is common in later "
            "pregnancy because the growing uterus presses on the stomach, and over-the-counter medicines can help "
            "heartburn in general, but MedlinePlus advises that if you're pregnant you should talk to your health "
            "care provider before taking any medicines, including over-the-counter ones, and the FDA notes that "
            "some medicines can harm the baby. If the heartburn keeps coming back, your provider can suggest "
            "something safe; and crushing chest pain, as opposed to burning, needs urgent help.",
            "2025-05-26T21:00:00Z",
            "safety",
            "initial",
            support=[OTC],
            history=[HEARTBURN, PREG_MEDICINES, PREG_CHANGES_OS],
            reqs=[
                Req(
                    "Recognise this as her pregnancy heartburn.",
                    ["heartburn", "pregnant"],
                    [
                        (PREG_CHANGES_OS, "A common gastrointestinal complaint during the later stages"),
                        (HEARTBURN, "Pregnancy, certain foods, alcohol, and some medications can bring on heartburn."),
                    ],
                    "Link the symptom to her pregnancy.",
                ),
                Req(
                    "Apply the rule: if pregnant, talk to a health care provider before taking any medicines, "
                    "including over-the-counter ones.",
                    ["pregnant"],
                    [
                        (OTC, "If you're pregnant, talk to your health care provider before taking any medicines."),
                        (PREG_MEDICINES, "Some medicines can harm your baby."),
                    ],
                    "Tell her to ask her provider or pharmacist before buying a remedy.",
                ),
                Req(
                    "Flag warning signs: persistent heartburn needs review; crushing chest pain needs urgent help.",
                    [],
                    [(HEARTBURN, "If you have other symptoms such as crushing chest pain")],
                    "Mention when to seek help.",
                ),
            ],
        ),
    ],
)
