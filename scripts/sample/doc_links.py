"""Related-document links of the sample bundle: (src, dst, description, weight).

Weights: 1.0 the same condition in another collection, 0.8 a related rule or topic, 0.6 anatomy and
physiology background for a condition page.
"""

SAME, RELATED, ANATOMY = 1.0, 0.8, 0.6

DOC_LINKS: list[tuple[str, str, str, float]] = [
    # hereditary hemochromatosis
    (
        "medquad-ghr-0000461",
        "medquad-niddk-0000185",
        "same condition: NIDDK overview with testing advice for relatives, ferritin thresholds, diet and alcohol",
        SAME,
    ),
    (
        "medquad-ghr-0000461",
        "medquad-nhlbi-0000067",
        "same condition: NHLBI page with carriers, treatment schedule and dietary changes",
        SAME,
    ),
    ("medquad-gard-0002766", "medquad-niddk-0000185", "same condition: NIDDK overview of hemochromatosis", SAME),
    ("medquad-gard-0002766", "medquad-gard-0002767", "the most common hereditary type of the condition", RELATED),
    (
        "medquad-mplushealthtopics-0000454",
        "medquad-nhlbi-0000067",
        "same condition: the NHLBI page this summary is based on",
        SAME,
    ),
    (
        "medquad-mplushealthtopics-0000525",
        "medquad-niddk-0000185",
        "iron overload: avoiding iron and vitamin C supplements in hemochromatosis",
        RELATED,
    ),
    (
        "medquad-mplushealthtopics-0000953",
        "medquad-nhlbi-0000067",
        "vitamin C increases iron absorption: limits in hemochromatosis",
        RELATED,
    ),
    (
        "medquad-niddk-0000185",
        "openstax-ap2e-m46496-fs-id1858356",
        "the liver, main organ damaged by iron overload",
        ANATOMY,
    ),
    (
        "medquad-nhlbi-0000067",
        "openstax-ap2e-m46707-fs-id2669609",
        "iron storage as ferritin and recycling from red blood cells",
        ANATOMY,
    ),
    (
        "medquad-nhlbi-0000067",
        "medquad-mplushealthtopics-0000204",
        "cirrhosis, a complication of iron overload",
        RELATED,
    ),
    # Alzheimer's disease and caregiving
    (
        "medquad-mplushealthtopics-0000025",
        "medquad-ghr-0000048",
        "same condition: genetics of early- and late-onset Alzheimer disease",
        SAME,
    ),
    ("medquad-ninds-0000017", "medquad-ghr-0000048", "same condition: inheritance and the APOE e4 risk allele", SAME),
    ("medquad-gard-0003486", "medquad-ghr-0000048", "late-onset familial Alzheimer disease and its genetics", RELATED),
    (
        "medquad-nihseniorhealth-0000004",
        "medquad-nihseniorhealth-0000003",
        "caring for a person with Alzheimer's disease at each stage",
        RELATED,
    ),
    (
        "medquad-mplushealthtopics-0000024",
        "medquad-nihseniorhealth-0000003",
        "caregiver services: home health care, adult day care, respite care and their costs",
        RELATED,
    ),
    (
        "medquad-mplushealthtopics-0000652",
        "medquad-nihseniorhealth-0000003",
        "residential care and respite stays for people with Alzheimer's disease",
        RELATED,
    ),
    (
        "medquad-mplushealthtopics-0000589",
        "medquad-nihseniorhealth-0000045",
        "Medicare coverage and continuing care",
        RELATED,
    ),
    (
        "medquad-nihseniorhealth-0000004",
        "openstax-ap2e-m46533-fs-id1488700",
        "the cerebrum, where memory and language are affected",
        ANATOMY,
    ),
    # chronic kidney disease
    (
        "medquad-mplushealthtopics-0000199",
        "medquad-nihseniorhealth-0000038",
        "same condition: kidney disease in older adults, GFR and medicines to avoid",
        SAME,
    ),
    (
        "medquad-niddk-0000150",
        "medquad-nihseniorhealth-0000038",
        "kidney disease tests, blood pressure target and safe use of medicines",
        RELATED,
    ),
    ("medquad-niddk-0000150", "medquad-niddk-0000164", "eating to control blood pressure in early CKD", RELATED),
    ("medquad-niddk-0000164", "medquad-niddk-0000162", "nutrition as chronic kidney disease advances", RELATED),
    (
        "medquad-mplushealthtopics-0000831",
        "medquad-niddk-0000162",
        "sodium limits and salt substitutes in kidney disease",
        RELATED,
    ),
    (
        "medquad-nihseniorhealth-0000049",
        "medquad-nihseniorhealth-0000038",
        "NSAID pain relievers and the kidneys",
        RELATED,
    ),
    ("medquad-mplushealthtopics-0000681", "medquad-niddk-0000137", "painkillers and kidney damage", RELATED),
    (
        "medquad-nihseniorhealth-0000038",
        "openstax-ap2e-m46433-fs-id1921085",
        "what the glomerular filtration rate measures",
        ANATOMY,
    ),
    (
        "medquad-niddk-0000138",
        "openstax-ap2e-m46446-fs-id2389244",
        "the kidneys make EPO, so kidney failure causes anemia",
        ANATOMY,
    ),
    # pregnancy, thyroid, infections and food
    ("medquad-mplushealthtopics-0000498", "medquad-niddk-0000013", "hypothyroidism during pregnancy", RELATED),
    ("medquad-ghr-0000448", "medquad-niddk-0000005", "same condition: NIDDK page on Hashimoto's disease", SAME),
    ("medquad-niddk-0000005", "medquad-niddk-0000013", "Hashimoto's disease, iodine and pregnancy", RELATED),
    (
        "openstax-ap2e-m46700-fs-id1009632",
        "medquad-niddk-0000013",
        "thyroid hormones in fetal development; iodine needs in pregnancy",
        ANATOMY,
    ),
    (
        "medquad-mplushealthtopics-0000738",
        "medquad-mplushealthtopics-0000674",
        "medicines in pregnancy, including over-the-counter ones",
        RELATED,
    ),
    (
        "medquad-mplushealthtopics-0000450",
        "openstax-ap2e-m46353-fs-id1284316",
        "why heartburn is common in later pregnancy",
        ANATOMY,
    ),
    (
        "medquad-mplushealthtopics-0000907",
        "medquad-cdc-0000415",
        "same condition: CDC page with transmission routes and prevention advice",
        SAME,
    ),
    ("medquad-gard-0001560", "medquad-cdc-0000415", "toxoplasmosis passed from mother to unborn child", RELATED),
    (
        "medquad-mplushealthtopics-0000739",
        "medquad-mplushealthtopics-0000559",
        "food safety in pregnancy: listeria",
        RELATED,
    ),
    (
        "medquad-mplushealthtopics-0000559",
        "medquad-niddk-0000100",
        "foodborne illnesses and who is most at risk",
        RELATED,
    ),
    # cystic fibrosis and genetic counseling
    (
        "medquad-ghr-0000262",
        "medquad-nhlbi-0000049",
        "same condition: NHLBI page with carrier and prenatal testing",
        SAME,
    ),
    ("medquad-mplushealthtopics-0000253", "medquad-nhlbi-0000049", "same condition: NHLBI cystic fibrosis page", SAME),
    (
        "medquad-nhlbi-0000049",
        "openstax-ap2e-m46311-fs-id1204116",
        "autosomal recessive inheritance with cystic fibrosis as the example",
        ANATOMY,
    ),
    (
        "medquad-mplushealthtopics-0000399",
        "medquad-mplushealthtopics-0000397",
        "genetic counseling before and after genetic testing",
        RELATED,
    ),
    (
        "medquad-mplushealthtopics-0000745",
        "medquad-mplushealthtopics-0000397",
        "prenatal tests offered on family history and age; counseling",
        RELATED,
    ),
]
