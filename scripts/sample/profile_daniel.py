"""Synthetic profile: Daniel, a distance caregiver with stage 3 chronic kidney disease."""

from authoring import A, Fact, Item, Profile, Read, Req, Search, Session, Topic, U

AD_CARE = "medquad-nihseniorhealth-0000003"  # Alzheimer's Caregiving (NIHSeniorHealth)
AD_SH = "medquad-nihseniorhealth-0000004"  # Alzheimer's Disease (NIHSeniorHealth)
AD_MP = "medquad-mplushealthtopics-0000025"  # Alzheimer's Disease (MedlinePlus)
AD_NINDS = "medquad-ninds-0000017"
AD_GHR = "medquad-ghr-0000048"
AD_CAREGIVERS = "medquad-mplushealthtopics-0000024"
CAREGIVERS = "medquad-mplushealthtopics-0000153"
NURSING_HOMES = "medquad-mplushealthtopics-0000652"
MEDICARE = "medquad-mplushealthtopics-0000589"
STRESS = "medquad-mplushealthtopics-0000856"
OA_SH = "medquad-nihseniorhealth-0000049"
OA_MP = "medquad-mplushealthtopics-0000666"
PAIN = "medquad-mplushealthtopics-0000681"
HBP_KIDNEY = "medquad-niddk-0000150"
CKD_MP = "medquad-mplushealthtopics-0000199"
KIDNEY_SH = "medquad-nihseniorhealth-0000038"
GFR_OS = "openstax-ap2e-m46433-fs-id1921085"
NUTRITION_EARLY = "medquad-niddk-0000164"
NUTRITION_ADV = "medquad-niddk-0000162"
SODIUM = "medquad-mplushealthtopics-0000831"
MINERALS_OS = "openstax-ap2e-m46467-fs-id2170180"
HBP_MP = "medquad-mplushealthtopics-0000471"

PROFILE = Profile(
    profile_id="p-daniel",
    prefix="dan",
    name="Daniel Okafor (synthetic)",
    description=(
        "Synthetic profile. 67-year-old retired machinist with stage 3 chronic kidney disease and knee "
        "osteoarthritis who supports his mother, who has Alzheimer's disease and lives alone two hours away."
    ),
    attributes={"age": 67, "sex": "male", "synthetic": True},
    avoid=["medquad-niddk-0000137"],  # painkillers and the kidneys: keep the NSAID rule new to this profile
    facts=[
        Fact(
            "mother-ad",
            "Daniel's mother, Grace (84), was diagnosed with Alzheimer's disease last year; her "
            "doctor describes it as the mild stage.",
            "family_health",
        ),
        Fact("mother-onset", "Grace's memory problems began when she was about 82.", "family_health"),
        Fact("mother-alone", "Grace lives alone in her own house.", "living_situation"),
        Fact(
            "distance", "Daniel lives about two hours' drive from his mother and visits her at weekends.", "caregiving"
        ),
        Fact("medicare", "Daniel is 67, retired, and enrolled in Medicare.", "insurance"),
        Fact(
            "knees",
            "Daniel has osteoarthritis in both knees and takes over-the-counter ibuprofen most days.",
            "medication",
        ),
        Fact(
            "ckd",
            "Daniel has stage 3 chronic kidney disease, which his nephrologist attributes to years of "
            "high blood pressure.",
            "condition",
        ),
        Fact(
            "bp",
            "Daniel's home blood pressure readings are around 148/92 while he takes two blood pressure medicines.",
            "measurement",
        ),
        Fact("mother-medicare", "Grace is covered by Medicare.", "insurance"),
        Fact(
            "trip",
            "Daniel plans to fly to his daughter's wedding in Lisbon in September and would be away "
            "for about ten days.",
            "plans",
        ),
        Fact(
            "stress",
            "Since taking on his mother's care, Daniel has been sleeping badly and feeling worn out and irritable.",
            "wellbeing",
        ),
    ],
    topics=[
        Topic(
            "mother",
            "Supporting Mum with Alzheimer's from a distance",
            "Understand Grace's diagnosis and how to support her while living two hours away.",
            ["mother-ad", "mother-onset", "mother-alone", "distance"],
        ),
        Topic("knees", "Knee pain", "Find ways to manage osteoarthritis pain in both knees.", ["knees"]),
        Topic(
            "kidneys",
            "Kidney disease and blood pressure",
            "Understand stage 3 chronic kidney disease, blood pressure goals and a lower-salt diet.",
            ["ckd", "bp", "medicare"],
        ),
        Topic(
            "trip",
            "Care for Mum during the wedding trip",
            "Arrange care for Grace while Daniel is abroad for about ten days.",
            ["trip", "mother-medicare", "mother-ad"],
        ),
        Topic("self", "Caregiver strain", "Cope with stress and poor sleep while caregiving.", ["stress"]),
    ],
    sessions=[
        Session(
            "01",
            "mother",
            "2025-01-08T19:05:00Z",
            [
                U(
                    "My mum Grace was diagnosed with Alzheimer's last year. She's 84, and her doctor calls it the mild "
                    "stage. Thinking back, her memory started slipping when she was about 82. What should we expect "
                    "from here?",
                    ["mother-ad", "mother-onset"],
                ),
                A(
                    "I'm sorry you're both dealing with this. Alzheimer's usually begins slowly, first affecting "
                    "memory, thinking and language, so trouble remembering recent events is typical early on. As it "
                    "moves into the moderate stage, memory loss and confusion get worse: people may have trouble "
                    "recognising family and friends, learning new things or doing multi-step tasks like getting "
                    "dressed, and some wander away from home. How quickly this happens varies a lot from person to "
                    "person. Symptoms starting around 82 fit the common late-onset pattern: more than 90 percent of "
                    "cases begin after age 65.",
                    [
                        Search(
                            "Alzheimer's disease stages memory loss confusion",
                            [
                                (
                                    AD_SH,
                                    "As Alzheimers disease progresses to the moderate stage",
                                    "Benefits of Early Diagnosis",
                                ),
                                (AD_MP, "AD begins slowly."),
                                (AD_NINDS, "More than 90 percent of AD develops in people older than 65."),
                            ],
                            k=5,
                        )
                    ],
                ),
                U(
                    "She still lives on her own, in the house she's had for forty years. I'm two hours away by car, so "
                    "I get over most weekends. I'm 67 and retired myself, on Medicare, so at least I have the time.",
                    ["mother-alone", "distance", "medicare"],
                ),
                A(
                    "Your time is a real asset, even with the driving. The NIH's Alzheimer's pages suggest a few "
                    "things for caregivers: use home health care, adult day care and respite services when you need "
                    "them; ask family and friends for specific help, such as making a meal or visiting so you can "
                    "take a break; and join a caregivers' support group. Since you're not there during the week, "
                    "it's worth thinking now about who could look in on her between your visits.",
                    [Read(AD_SH, "- Join a caregivers support group.", 2)],
                ),
            ],
        ),
        Session(
            "02",
            "knees",
            "2025-01-21T10:30:00Z",
            [
                U(
                    "Different topic: my knees. I've got osteoarthritis in both, and I've been taking ibuprofen "
                    "from the chemist most days just to get through. Are there other things that actually help?",
                    ["knees"],
                ),
                A(
                    "Yes, several non-drug approaches help many people with knee osteoarthritis. Heat (warm towels, "
                    "hot packs, a warm bath or shower) eases pain and stiffness, and cold packs can reduce "
                    "inflammation; a doctor or physical therapist can tell you which suits you. TENS, a small "
                    "device that sends mild electrical pulses to nerve endings, may relieve some arthritis pain. "
                    "Massage from a therapist who understands arthritis can help, and a large NIH-supported study "
                    "found that acupuncture relieves pain and improves function in knee osteoarthritis. Insoles or "
                    "cushioned shoes may reduce stress on the knee. Folk remedies such as copper bracelets have no "
                    "research showing they help.",
                    [
                        Search(
                            "knee osteoarthritis pain relief without medicine",
                            [
                                (OA_SH, "People with osteoarthritis may find many non-drug ways to relieve pain."),
                                (OA_MP, "Osteoarthritis is the most common form of arthritis."),
                            ],
                            k=4,
                        ),
                        Read(OA_SH, "Warm towels, hot packs, or a warm bath or shower", 3),
                    ],
                ),
                U("And the tablets? Is ibuprofen the usual thing people take for this?"),
                A(
                    "It's one of the common options, but usually not the first. The NIH osteoarthritis page says "
                    "doctors usually start with acetaminophen because its side effects are minimal, and use NSAIDs "
                    "such as ibuprofen or naproxen if that doesn't relieve the pain. Most arthritis medicines have "
                    "side effects: people over 65 and anyone with a history of ulcers or stomach bleeding should "
                    "use NSAIDs with caution, and taking them with food and avoiding alcohol, tobacco and caffeine "
                    "can reduce stomach irritation. Since you take it most days, it's worth reviewing with your "
                    "doctor.",
                    [
                        Search(
                            "osteoarthritis medicines acetaminophen NSAIDs side effects",
                            [
                                (OA_SH, "Corticosteroids, hyaluronic acid, and topical creams are also used."),
                                (PAIN, "Pain relievers are medicines that reduce or relieve headaches"),
                            ],
                            k=3,
                        )
                    ],
                ),
            ],
        ),
        Session(
            "03",
            "kidneys",
            "2025-02-04T09:15:00Z",
            [
                U(
                    "Saw the nephrologist yesterday. She says I have stage 3 chronic kidney disease, from years of "
                    "high blood pressure apparently. What does that actually mean?",
                    ["ckd"],
                ),
                A(
                    "Chronic kidney disease means the kidneys are damaged and can't filter blood as well as they "
                    "should, so wastes can build up; it can get worse over time, and diabetes and high blood "
                    "pressure are the most common causes. Kidney function is tracked with a blood test that "
                    "estimates the glomerular filtration rate (eGFR), roughly how much blood your kidneys filter "
                    "each minute. On the NIDDK page, an eGFR of 60 or above is in the normal range, below 60 may "
                    "indicate kidney damage, and 15 or below may indicate kidney failure. Your nephrologist can "
                    "tell you your own number and how it is trending.",
                    [
                        Search(
                            "chronic kidney disease high blood pressure stage 3 eGFR",
                            [
                                (
                                    HBP_KIDNEY,
                                    "estimated glomerular filtration rate (eGFR)",
                                    "- eGFR of 15 or below may indicate kidney failure",
                                ),
                                (CKD_MP, "Chronic kidney disease (CKD) means that your kidneys are damaged"),
                                (GFR_OS, "The volume of filtrate formed by both kidneys per minute"),
                            ],
                            k=4,
                        ),
                        Read(HBP_KIDNEY, "estimated glomerular filtration rate (eGFR)", 5),
                    ],
                ),
                U(
                    "I check my blood pressure at home. It's usually about 148 over 92, and that's on two different "
                    "pills.",
                    ["bp"],
                ),
                A(
                    "That's above the goal this page gives for people with kidney disease: whatever caused the "
                    "kidney disease, high blood pressure can increase the damage, and people with kidney disease "
                    "should keep their blood pressure below 140/90. Blood pressure medicines can significantly slow "
                    "kidney disease, ACE inhibitors and ARBs in particular, and many people need two or more "
                    "medicines to reach their goal, sometimes with a diuretic. Please share your home readings with "
                    "your nephrologist; your treatment may need adjusting.",
                    [Read(HBP_KIDNEY, "should keep their blood pressure below 140/90.4", 5)],
                ),
                U("Will do. Is there anything I can do myself in the meantime?"),
                A(
                    "The same NIDDK page pairs medication with lifestyle changes to lower blood pressure: healthy "
                    "eating, regular physical activity, keeping a healthy weight, quitting smoking if you smoke, "
                    "and managing stress. Those are things you can start on now while your nephrologist reviews "
                    "your medicines.",
                    [
                        Search(
                            "lower blood pressure lifestyle changes kidney disease",
                            [
                                (
                                    HBP_KIDNEY,
                                    "The best way to slow or prevent kidney disease from high blood pressure",
                                    "should keep their blood pressure below 140/90.4",
                                )
                            ],
                            k=3,
                        )
                    ],
                ),
            ],
        ),
        Session(
            "04",
            "trip",
            "2025-03-03T18:40:00Z",
            [
                U(
                    "My daughter's getting married in Lisbon in September, and I'd be away about ten days. I can't "
                    "check on Mum for that long. What are my options for someone to look after her while I'm gone?",
                    ["trip"],
                ),
                A(
                    "There are services for exactly this. The NIH caregiver page suggests adult day care or respite "
                    "services, which give you a break with the peace of mind that she is being looked after, and "
                    "recommends planning ahead, including finding out what her health insurance and Medicare will "
                    "cover. Some nursing homes also have special care units for people with memory problems such as "
                    "Alzheimer's disease. It would help to know how her care is paid for.",
                    [
                        Search(
                            "respite care options for Alzheimer's caregiver going away",
                            [
                                (AD_CAREGIVERS, "Consider using adult day care or respite services."),
                                (NURSING_HOMES, "Some nursing homes have special care units"),
                                (CAREGIVERS, "Caregivers provide help to another person in need."),
                            ],
                            k=4,
                        )
                    ],
                ),
                U("She's on Medicare, like me.", ["mother-medicare"]),
                A(
                    "Medicare is the federal health insurance program for people aged 65 or older. It has four "
                    "parts: A (hospital insurance), B (medical services Part A doesn't cover), C (Medicare "
                    "Advantage) and D (prescription drugs). The summary notes that it does not cover all medical "
                    "expenses or the cost of most long-term care, so check the specific rules for a short stay with "
                    "Medicare or the facility before you book anything.",
                    [
                        Search(
                            "what does Medicare cover long-term care",
                            [(MEDICARE, "Medicare is the U.S. government's health insurance program")],
                            k=3,
                        ),
                        Read(MEDICARE, "Medicare is the U.S. government's health insurance program", 5),
                    ],
                ),
            ],
        ),
        Session(
            "05",
            "kidneys",
            "2025-03-24T20:10:00Z",
            [
                U(
                    "My nephrologist wants me to cut down on salt. Honestly I live on canned soup and crisps. How much "
                    "is too much?"
                ),
                A(
                    "Most people eat more sodium than they need. MedlinePlus says doctors recommend less than 2.4 "
                    "grams of sodium a day, about one teaspoon of table salt, and reading food labels helps because "
                    "so much sodium is in prepared foods. Canned soups and salty snacks are big sources. The DASH "
                    "eating plan mentioned on your blood pressure page focuses on fruits, vegetables, whole grains "
                    "and other heart-healthy foods that are lower in sodium.",
                    [
                        Search(
                            "how much sodium per day high blood pressure",
                            [
                                (SODIUM, "Doctors recommend you eat less than 2.4 grams per day."),
                                (HBP_KIDNEY, "A health care provider may recommend the Dietary Approaches to Stop"),
                                (MINERALS_OS, "Sodium | Table salt"),
                            ],
                            k=4,
                        )
                    ],
                ),
                U("Without salt everything tastes of nothing. I'll have to find some tricks."),
                A(
                    "Fair enough, it takes some getting used to. Your nephrologist's team can point you to practical "
                    "help with a lower-salt eating plan, and we can look at seasoning ideas another time if you like."
                ),
            ],
        ),
        Session(
            "06",
            "self",
            "2025-04-14T07:45:00Z",
            [
                U(
                    "Honestly, I'm running on empty. Since I took on Mum's care I'm sleeping badly and I'm short with "
                    "everyone. Is this normal?",
                    ["stress"],
                ),
                A(
                    "It's very common. MedlinePlus notes that caregivers of chronically ill people often feel stress, "
                    "being on call around the clock, and that caring for someone with Alzheimer's can be especially "
                    "hard. Stress shows up differently in different people: headaches, sleeplessness, low mood, anger "
                    "and irritability are all listed, and people under chronic stress get more frequent and severe "
                    "colds and flu. Support groups can help, and it's important to know your limits.",
                    [
                        Search(
                            "caregiver stress sleep problems irritability",
                            [
                                (
                                    CAREGIVERS,
                                    "Caregiving is hard, and caregivers of chronically ill people often feel stress.",
                                ),
                                (
                                    STRESS,
                                    "Everyone feels stressed from time to time.",
                                    "Others may have headaches, sleeplessness",
                                ),
                            ],
                            k=4,
                        ),
                        Read(STRESS, "Everyone feels stressed from time to time.", 4),
                    ],
                ),
                U("Mum's neighbour pops in sometimes, but I still feel like it's all on me."),
                A(
                    "The NIH caregiver advice is to look after yourself too: ask for and accept help, find a "
                    "support group of people who have been there, make use of the times of day when the person is "
                    "less confused, and consider adult day care or respite services. Perhaps the neighbour could "
                    "take on one specific, regular task, which would spread the load a little.",
                    [Read(AD_CAREGIVERS, "Caring for someone who has Alzheimer's disease", 4)],
                ),
            ],
        ),
        Session(
            "07",
            "mother",
            "2025-05-12T19:20:00Z",
            [
                U("Mum has a memory clinic appointment next month. What kinds of tests do they usually do there?"),
                A(
                    "Doctors usually ask about overall health, past medical problems, the ability to carry out daily "
                    "activities and changes in behaviour and personality; run tests of memory, problem solving, "
                    "attention, counting and language; do standard blood and urine tests; and may do brain scans. Part "
                    "of the purpose is to rule out other causes of similar symptoms, such as thyroid problems, drug "
                    "reactions or depression, many of which can be treated.",
                    [
                        Search(
                            "how is Alzheimer's diagnosed memory tests",
                            [(AD_SH, 21), (AD_NINDS, "Initially, people experience memory loss and confusion")],
                            k=4,
                        ),
                        Read(AD_SH, 21, 3),
                    ],
                ),
                U("Good to know. I'll make a list of what I've noticed to bring along."),
                A(
                    "That's a good idea: doctors ask about changes in daily activities, behaviour and personality, "
                    "so a dated list of specific things you've noticed will help them."
                ),
            ],
        ),
    ],
    items=[
        Item(
            "01",
            "I stopped by Mum's on Saturday and found a pan of soup burned dry on the stove; she'd forgotten all "
            "about it. What should I make of that?",
            "Take it seriously. Your mum has Alzheimer's and lives on her own, and the NIH caregiving guide lists "
            "food burned because it was left on the stove, along with forgetting to eat and leaving the oven on, "
            "as signs that living alone may no longer be safe for someone with Alzheimer's. You're two hours away "
            "and there mostly at weekends, so in the short term stock foods she doesn't need to cook and phone to "
            "remind her to eat, and watch for the other warning signs. But this is the moment to talk with her "
            "doctor and family about more support, such as a home health aide or a different living arrangement.",
            "2025-06-02T18:00:00Z",
            "safety",
            "initial",
            support=[AD_CARE],
            history=[AD_SH],
            reqs=[
                Req(
                    "Recognise that Grace has Alzheimer's disease and lives alone, the situation the caregiving "
                    "guidance on early-stage Alzheimer's and living alone addresses.",
                    ["mother-ad", "mother-alone"],
                    [(AD_CARE, "When a person with early-stage Alzheimers lives alone")],
                    "Frame the answer around a person with early-stage Alzheimer's who lives alone.",
                ),
                Req(
                    "State that food burned because it was left on the stove is one of the listed signs that "
                    "living alone may no longer be safe (with forgetting to eat and leaving the oven on).",
                    ["mother-alone"],
                    [
                        (
                            AD_CARE,
                            "Look for these signs to see if living alone is no longer safe",
                            "- The oven isn't turned off.",
                        )
                    ],
                    "Treat the burned pan as a warning sign and recommend reassessing whether she can keep living "
                    "alone.",
                ),
                Req(
                    "Given that Daniel lives two hours away and visits at weekends, suggest interim steps (foods "
                    "that need no cooking, reminder calls) and arranging more help.",
                    ["distance"],
                    [
                        (AD_CARE, "- Buy foods that the person doesn't need to cook.", "- Call to remind him or her"),
                        (AD_SH, "- Use home health care, adult day care, and respite services."),
                    ],
                    "Recommend no-cook food and reminder calls now, and plan for more supervision.",
                ),
            ],
        ),
        Item(
            "02",
            "The neurologist says Mum has now moved into the moderate stage. Does that change anything about how "
            "things are set up for her?",
            "Yes. In the moderate stage memory loss and confusion get worse, and people may begin to wander, so "
            "the NIH caregiving guide says they should not be left alone. Your mum lives on her own and you are "
            "there mainly at weekends, so for most of the week nobody is with her; that set-up no longer fits. "
            "Talk with her doctor about next steps and arrange supervision: home health aides can come for a few "
            "hours or stay 24 hours, adult day care offers a safe place with staff during the day, and some "
            "nursing homes have special units for people with memory problems.",
            "2025-06-02T18:30:00Z",
            "safety",
            "augmented",
            support=[AD_CARE],
            history=[AD_SH, NURSING_HOMES],
            reqs=[
                Req(
                    "Apply the moderate-stage guidance: people may begin to wander and should not be left alone.",
                    ["mother-ad"],
                    [
                        (AD_CARE, "They also may begin to wander, so they should not be left alone."),
                        (
                            AD_SH,
                            "As Alzheimers disease progresses to the moderate stage",
                            "Benefits of Early Diagnosis",
                        ),
                    ],
                    "State that she should no longer be left alone.",
                ),
                Req(
                    "Connect this to Grace living alone while Daniel visits only at weekends from two hours away, "
                    "so she is alone most of the week.",
                    ["mother-alone", "distance"],
                    [(AD_CARE, "They also may begin to wander, so they should not be left alone.")],
                    "Say the current arrangement no longer fits.",
                ),
                Req(
                    "Recommend concrete supervision options (home health aides, adult day care, a setting with "
                    "24-hour care or a memory care unit) and discussing next steps with her doctor.",
                    [],
                    [
                        (AD_CARE, "Home Health Care Services Home health care agencies send a home health aide"),
                        (NURSING_HOMES, "Some nursing homes have special care units"),
                    ],
                    "Recommend arranging supervision.",
                ),
            ],
        ),
        Item(
            "03",
            "Lately I keep wondering whether I'll end up with the same thing. Is it something I'm likely to inherit?",
            "Probably not in the way you fear. Your mum's memory problems began around 82, so hers is late-onset "
            "Alzheimer's (symptoms after 65). The forms passed directly from parent to child are the much rarer "
            "early-onset ones, caused by mutations in the APP, PSEN1 or PSEN2 genes and appearing before 65. "
            "Late-onset Alzheimer's does not clearly run in families; it is probably related to several genes "
            "combined with lifestyle and environmental factors. Having a family member with the disease does make "
            "your risk somewhat higher, and a gene variant called APOE e4 increases risk, but people inherit the "
            "increased risk, not the disease itself. Your doctor can talk this through with you.",
            "2025-06-03T09:00:00Z",
            "interpretation",
            "initial",
            support=[AD_GHR],
            history=[AD_MP, AD_NINDS],
            reqs=[
                Req(
                    "Classify Grace's Alzheimer's as late-onset, since her symptoms began around age 82.",
                    ["mother-ad", "mother-onset"],
                    [
                        (AD_GHR, "The signs and symptoms of the early-onset form appear before age 65"),
                        (AD_NINDS, "More than 90 percent of AD develops in people older than 65."),
                    ],
                    "Identify her case as late-onset.",
                ),
                Req(
                    "Explain that the directly inherited (autosomal dominant) form is early-onset, while late-onset "
                    "Alzheimer's does not clearly run in families.",
                    [],
                    [
                        (AD_GHR, "The late-onset form does not clearly run in families"),
                        (AD_GHR, "The early-onset form of Alzheimer disease is inherited in an autosomal dominant"),
                    ],
                    "Say it is not inherited in a predictable way.",
                ),
                Req(
                    "Note that having an affected family member raises risk somewhat and that APOE e4 raises risk "
                    "without causing the disease.",
                    ["mother-ad"],
                    [
                        (AD_MP, "Your risk is also higher if a family member has had the disease."),
                        (AD_GHR, "It is important to note that people with the APOE e4 allele inherit an increased"),
                    ],
                    "Give a balanced statement of his risk.",
                ),
            ],
        ),
        Item(
            "04",
            "My doctor suggested I see a dietitian. Would my coverage pay for that, or is it out of pocket?",
            "Most likely it's covered, with a referral. You're on Medicare and you have chronic kidney disease. "
            "According to the NIDDK, anyone who qualifies for Medicare can receive a medical nutrition therapy "
            "benefit from a registered dietitian or nutrition professional when a doctor provides a referral "
            "indicating diabetes or kidney disease. So ask your doctor for a referral that states your kidney "
            "disease, and look for a renal dietitian, one who specialises in chronic kidney disease (the Academy "
            "of Nutrition and Dietetics directory lets you search for renal nutrition). Confirm the details with "
            "Medicare before your first visit.",
            "2025-06-03T10:00:00Z",
            "eligibility",
            "initial",
            support=[NUTRITION_EARLY, NUTRITION_ADV],
            history=[MEDICARE],
            reqs=[
                Req(
                    "Use that Daniel is enrolled in Medicare.",
                    ["medicare"],
                    [(NUTRITION_EARLY, "Anyone who qualifies for Medicare can receive a benefit for MNT")],
                    "Identify Medicare as his coverage.",
                ),
                Req(
                    "Use that Daniel has chronic kidney disease, one of the two qualifying conditions.",
                    ["ckd"],
                    [
                        (NUTRITION_EARLY, "Anyone who qualifies for Medicare can receive a benefit for MNT"),
                        (NUTRITION_ADV, "Anyone who qualifies for Medicare can receive a benefit for MNT"),
                    ],
                    "Confirm that kidney disease qualifies.",
                ),
                Req(
                    "State the condition: the benefit needs a doctor's referral indicating kidney disease; suggest "
                    "a renal dietitian.",
                    [],
                    [
                        (
                            NUTRITION_EARLY,
                            "Anyone who qualifies for Medicare can receive a benefit for MNT",
                            "Renal (Kidney) Nutrition in the specialty field",
                        )
                    ],
                    "Tell him to get a referral that names his kidney disease.",
                ),
            ],
        ),
        Item(
            "05",
            "My knees have been bad again this week. Is it OK to go back to taking the usual tablets every day?",
            "I'd hold off and check first. The tablets you've been buying are ibuprofen, an NSAID, and you now "
            "have stage 3 chronic kidney disease. The NIH kidney disease page warns that NSAIDs can harm your "
            "kidneys, especially if you have kidney disease and high blood pressure, and says that if you have "
            "kidney disease you should not use NSAIDs (ibuprofen and naproxen are sold under many brand names). "
            "Ask your nephrologist or pharmacist what is safe for your knees: for osteoarthritis pain doctors "
            "usually start with acetaminophen, and heat or cold packs, TENS, massage, acupuncture and cushioned "
            "insoles can also help.",
            "2025-06-04T08:30:00Z",
            "safety",
            "augmented",
            support=[KIDNEY_SH],
            history=[OA_SH, PAIN],
            reqs=[
                Req(
                    "Recognise that the usual tablets are over-the-counter ibuprofen, an NSAID.",
                    ["knees"],
                    [(PAIN, "ibuprofen (Advil, Motrin) are examples of OTC NSAIDs")],
                    "Identify the medicine as an NSAID.",
                ),
                Req(
                    "Apply the kidney rule: NSAIDs can harm the kidneys, and people with kidney disease should not "
                    "use them.",
                    ["ckd"],
                    [(KIDNEY_SH, "If you have kidney disease, do not use NSAIDs.")],
                    "Advise against resuming daily ibuprofen without his doctor's or pharmacist's approval.",
                ),
                Req(
                    "Offer alternatives from the osteoarthritis guidance: ask the doctor about other pain relief "
                    "(acetaminophen is usually tried first) and non-drug options.",
                    ["knees"],
                    [
                        (OA_SH, "Corticosteroids, hyaluronic acid, and topical creams are also used."),
                        (OA_SH, "People with osteoarthritis may find many non-drug ways to relieve pain."),
                    ],
                    "Suggest discussing safer pain relief.",
                ),
            ],
        ),
        Item(
            "06",
            "A friend swears by those potassium 'lite salt' shakers instead of ordinary salt. Should I switch?",
            "Check with your nephrologist before switching. Those shakers replace sodium with potassium, and the "
            "NIDDK's nutrition advice for advanced chronic kidney disease says to avoid salt substitutes that use "
            "potassium, because CKD limits the body's ability to remove potassium from the blood, and potassium "
            "build-up can cause serious heart problems. You have stage 3 CKD; whether your doctor considers it "
            "advanced and whether your blood potassium is already high hasn't come up, and a blood test shows "
            "that. If your potassium is raised or your kidney function is worse, avoid them; if your nephrologist "
            "says your potassium is fine, ask whether any amount is acceptable. Meanwhile lemon juice, salt-free "
            "seasoning mixes and hot pepper sauce add flavour without sodium.",
            "2025-06-04T19:00:00Z",
            "safety",
            "initial",
            support=[NUTRITION_ADV],
            history=[SODIUM],
            reqs=[
                Req(
                    "Connect the question to Daniel's chronic kidney disease.",
                    ["ckd"],
                    [(NUTRITION_ADV, "such as AlsoSalt or Nu-Salt")],
                    "Flag his kidney disease before recommending anything.",
                ),
                Req(
                    "State the rule: with advanced CKD avoid potassium-based salt substitutes, because damaged "
                    "kidneys let potassium build up, which can cause serious heart problems.",
                    [],
                    [
                        (NUTRITION_ADV, "such as AlsoSalt or Nu-Salt"),
                        (NUTRITION_ADV, "Keeping the proper level of potassium in the blood is essential."),
                    ],
                    "Advise not to switch without checking.",
                ),
                Req(
                    "Keep the unknown premise conditional: his current potassium level and whether his CKD counts "
                    "as advanced were never stated; blood tests show potassium.",
                    ["ckd"],
                    [(NUTRITION_ADV, "Blood tests can indicate when potassium levels have climbed above normal")],
                    "Give a conditional answer and suggest asking the nephrologist to check potassium.",
                ),
                Req(
                    "Offer salt-free alternatives for flavour.",
                    [],
                    [(NUTRITION_ADV, "Alternative seasonings such as lemon juice, salt-free seasoning mixes")],
                    "Suggest safer ways to cut salt.",
                ),
            ],
        ),
        Item(
            "07",
            "For the Lisbon trip, how much of Mum's stay in a care facility could her insurance actually pay for?",
            "Probably only part of it. Respite services offer short stays, from a few days to a few weeks, in a "
            "nursing home or similar place. The NIH caregiving guide says Medicare or Medicaid may cover up to 5 "
            "days in a row of respite care in an inpatient facility, and most private insurance plans do not "
            "cover it. Your mum has Medicare, but you'll be away about ten days, so expect cover for at most five "
            "consecutive days; the rest would likely be paid out of pocket (respite is charged by the day or "
            "week) or covered another way, for example family or a home health aide. Medicare does not cover most "
            "long-term care, so confirm the details with Medicare and the facility before booking; the National "
            "Respite Locator Service can help you find places.",
            "2025-06-05T12:00:00Z",
            "eligibility",
            "augmented",
            support=[AD_CARE],
            history=[MEDICARE, AD_CAREGIVERS],
            reqs=[
                Req(
                    "Use the trip length of about ten days: she would need respite care for that long.",
                    ["trip"],
                    [(AD_CARE, "Respite services provide short stays")],
                    "Identify the need as about ten days of respite care.",
                ),
                Req(
                    "Use that Grace has Alzheimer's and is covered by Medicare.",
                    ["mother-medicare", "mother-ad"],
                    [(AD_CARE, "Medicare or Medicaid may cover the cost of up to 5 days in a row of respite care")],
                    "Identify the relevant coverage.",
                ),
                Req(
                    "Apply the rule: Medicare or Medicaid may cover up to 5 consecutive days of inpatient respite "
                    "care and most private plans do not, so about half of a ten-day stay may be covered.",
                    ["trip", "mother-medicare"],
                    [(AD_CARE, "Medicare or Medicaid may cover the cost of up to 5 days in a row of respite care")],
                    "State that at most five consecutive days may be covered and plan for the remaining days.",
                ),
                Req(
                    "Note that Medicare does not cover most long-term care; recommend confirming before booking.",
                    [],
                    [(MEDICARE, "It does not cover all medical expenses or the cost of most long-term care.")],
                    "Recommend confirming coverage with Medicare and the facility.",
                ),
            ],
        ),
        Item(
            "08",
            "I think I need to talk to someone professionally about how I've been feeling. Is that covered for "
            "someone in my position?",
            "Yes, it's worth doing, and it may be partly covered. What you've described, sleeping badly and feeling "
            "worn out and irritable since taking on your mum's care, is common caregiver stress. The NIH "
            "Alzheimer's caregiving guide says mental health professionals and social workers help caregivers deal "
            "with stress, understand feelings such as anger or sadness, and plan for sudden events. They charge by "
            "the hour, and Medicare, Medicaid and some private plans may cover some of the costs. As you're on "
            "Medicare, ask your plan which mental health counselors and services it covers, then ask your doctor, "
            "local family service agencies or community mental health agencies for referrals. A caregivers' "
            "support group is another option.",
            "2025-06-05T21:00:00Z",
            "eligibility",
            "initial",
            support=[AD_CARE],
            history=[STRESS, CAREGIVERS],
            reqs=[
                Req(
                    "Recognise Daniel's caregiver stress: poor sleep, exhaustion and irritability since taking on "
                    "his mother's care.",
                    ["stress", "mother-ad"],
                    [
                        (STRESS, "Others may have headaches, sleeplessness, depressed mood, anger, and irritability."),
                        (CAREGIVERS, "Caregiving is hard, and caregivers of chronically ill people often feel stress."),
                    ],
                    "Acknowledge the strain as caregiver stress.",
                ),
                Req(
                    "Explain that mental health professionals and social workers help caregivers deal with stress.",
                    ["stress"],
                    [(AD_CARE, "Mental health professionals and social workers help you deal with any stress")],
                    "Recommend a mental health professional or social worker.",
                ),
                Req(
                    "Apply coverage: they charge by the hour; Medicare, Medicaid and some private plans may cover "
                    "some costs; ask the plan which counselors are covered.",
                    ["medicare"],
                    [(AD_CARE, "Mental health professionals charge by the hour.")],
                    "Tell him to check which counselors his Medicare plan covers and to get referrals.",
                ),
            ],
        ),
        Item(
            "09",
            "My latest lab report says my GFR is 42. Is that bad for someone my age, and can I get it back up?",
            "A GFR of 42 is below 60, and a GFR below 60 may mean kidney disease, but it is well above 15, the level "
            "that may mean kidney failure, so it fits the stage 3 chronic kidney disease your nephrologist "
            "diagnosed. GFR does fall with age, so a low number alone needs other information, but in your case "
            "the diagnosis is already made. You can't raise your GFR, but you can try to keep it from going "
            "lower, and the most important step is controlling your blood pressure, aiming for less than 140/90. "
            "Your home readings of about 148/92 are above that, so raise them with your nephrologist.",
            "2025-06-06T09:30:00Z",
            "interpretation",
            "initial",
            support=[KIDNEY_SH],
            history=[HBP_KIDNEY],
            reqs=[
                Req(
                    "Interpret 42 against the thresholds: below 60 may mean kidney disease and 15 or lower may mean "
                    "kidney failure, consistent with his diagnosed stage 3 CKD.",
                    ["ckd"],
                    [
                        (
                            KIDNEY_SH,
                            "- A GFR of 60 or higher is in the normal range.",
                            "- A GFR of 15 or lower may mean kidney failure.",
                        ),
                        (
                            HBP_KIDNEY,
                            "- eGFR of 60 or above is in the normal range",
                            "- eGFR of 15 or below may indicate kidney failure",
                        ),
                    ],
                    "Place the value in the kidney disease range, short of failure.",
                ),
                Req(
                    "Account for age (he is 67): GFR decreases with age, but he already has a diagnosis.",
                    ["medicare", "ckd"],
                    [(KIDNEY_SH, "- A GFR below 60 may mean you have kidney disease.")],
                    "Mention the age effect without dismissing the diagnosis.",
                ),
                Req(
                    "Say GFR can't be raised but its fall can be slowed, chiefly by controlling blood pressure to "
                    "below 140/90, which his readings exceed.",
                    ["bp"],
                    [
                        (KIDNEY_SH, "You can't raise your GFR, but you can try to keep it from going lower."),
                        (KIDNEY_SH, "The most important step you can take to treat kidney disease is to control"),
                    ],
                    "Focus on slowing the decline through blood pressure control.",
                ),
            ],
        ),
    ],
)
