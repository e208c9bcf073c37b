"""Synthetic profile: Owen, newly diagnosed with hereditary hemochromatosis."""

from authoring import A, Fact, Item, Profile, Read, Req, Search, Session, Topic, U

HH_NIDDK = "medquad-niddk-0000185"
HH_NHLBI = "medquad-nhlbi-0000067"
HH_GHR = "medquad-ghr-0000461"
HH_GARD = "medquad-gard-0002766"
HH_MP = "medquad-mplushealthtopics-0000454"
IRON_MP = "medquad-mplushealthtopics-0000525"
VITC_MP = "medquad-mplushealthtopics-0000953"
ALCOHOL_MP = "medquad-mplushealthtopics-0000020"
CIRRHOSIS_MP = "medquad-mplushealthtopics-0000204"
LIVER_MP = "medquad-mplushealthtopics-0000561"
ARTHRITIS_MP = "medquad-mplushealthtopics-0000057"
LIVER_OS = "openstax-ap2e-m46496-fs-id1858356"
RBC_LIFECYCLE_OS = "openstax-ap2e-m46707-fs-id2669609"
SYNOVIAL_OS = "openstax-ap2e-m46394-fs-id1960769"
MINERALS_OS = "openstax-ap2e-m46467-fs-id2170180"

PROFILE = Profile(
    profile_id="p-owen",
    prefix="owen",
    name="Owen Gallagher (synthetic)",
    description=(
        "Synthetic profile. 46-year-old PE teacher and amateur runner, recently diagnosed with hereditary "
        "hemochromatosis; father of two teenagers, brother of Declan."
    ),
    attributes={"age": 46, "sex": "male", "synthetic": True},
    avoid=["medquad-gard-0002767"],  # hemochromatosis type 1 (GARD): another treatment schedule
    facts=[
        Fact(
            "hh",
            "Owen was diagnosed with hereditary hemochromatosis in February 2025; genetic testing found two "
            "copies of the C282Y change in the HFE gene.",
            "condition",
        ),
        Fact("ferritin", "Owen's serum ferritin at diagnosis was about 1,100.", "measurement"),
        Fact(
            "phlebotomy",
            "Owen has weekly phlebotomy sessions at a hospital outpatient unit and pays a co-payment for each one.",
            "treatment",
        ),
        Fact(
            "supplements",
            "Owen takes a multivitamin that contains iron and a 1,000 mg vitamin C tablet most mornings.",
            "supplement",
        ),
        Fact("beer", "Owen usually drinks three or four pints of beer on Friday and on Saturday nights.", "alcohol"),
        Fact("oysters", "Owen eats raw oysters by the dozen at the harbour oyster festival every May.", "diet"),
        Fact("brother", "Owen's younger brother, Declan, has never been tested for hemochromatosis.", "family_health"),
        Fact("kids", "Owen has two children, aged 15 and 12.", "family"),
        Fact(
            "joints",
            "Owen has had aching knuckles and knees for about two years, which his GP put down to arthritis.",
            "symptom",
        ),
    ],
    topics=[
        Topic(
            "dx",
            "Understanding the diagnosis",
            "Understand hereditary hemochromatosis and the test results.",
            ["hh", "ferritin"],
        ),
        Topic("treatment", "Phlebotomy treatment", "Understand weekly blood removal and its cost.", ["phlebotomy"]),
        Topic(
            "family",
            "What it means for the family",
            "Understand how the condition is inherited.",
            ["hh", "brother", "kids"],
        ),
        Topic(
            "life",
            "Food, drink and supplements",
            "Adjust diet, drinking and supplements.",
            ["supplements", "beer", "oysters"],
        ),
        Topic("joints", "Joint pain and running", "Deal with aching joints while staying active.", ["joints", "kids"]),
    ],
    sessions=[
        Session(
            "01",
            "dx",
            "2025-02-12T18:00:00Z",
            [
                U(
                    "Got my results back today: hereditary hemochromatosis. The genetic test showed two copies of "
                    "something called C282Y in a gene called HFE, and my ferritin was around 1,100. I honestly don't "
                    "know what any of this means.",
                    ["hh", "ferritin"],
                ),
                A(
                    "Hereditary hemochromatosis is an inherited disorder in which the body absorbs too much iron from "
                    "food. Because people can't increase how much iron they excrete, the excess is stored in tissues "
                    "such as the skin, heart, liver, pancreas and joints and can eventually damage them. Type 1, the "
                    "most common form, is caused by mutations in the HFE gene, the gene your test looked at. "
                    "Early symptoms are vague (tiredness, joint pain, abdominal pain, low sex drive); later ones can "
                    "include arthritis, liver disease, diabetes and heart problems. Men with type 1 typically develop "
                    "symptoms between 40 and 60. The pages I found don't go into specific ferritin numbers, so your "
                    "doctor is the person to explain what yours means.",
                    [
                        Search(
                            "hereditary hemochromatosis HFE C282Y iron overload",
                            [
                                (HH_GHR, "Hereditary hemochromatosis is a disorder that causes the body to absorb"),
                                (HH_MP, "Hemochromatosis is a disease in which too much iron builds up"),
                                (HH_GARD, "Hemochromatosis is a condition in which too much iron builds up"),
                            ],
                            k=4,
                        ),
                        Read(HH_GHR, "Hereditary hemochromatosis is a disorder that causes the body to absorb", 5),
                    ],
                ),
                U("Is it treatable, then?"),
                A(
                    "Yes. MedlinePlus lists treatments that include removing blood (and with it iron) from your body, "
                    "medicines, and changes in diet, and it notes that not everyone with hemochromatosis has symptoms.",
                    [Read(HH_MP, "Hemochromatosis is a disease in which too much iron builds up", 1)],
                ),
            ],
        ),
        Session(
            "02",
            "treatment",
            "2025-02-26T17:40:00Z",
            [
                U(
                    "They've booked me in for blood removal every week at the hospital outpatient unit. Each visit "
                    "is a co-pay, which is starting to sting. What does the treatment actually do?",
                    ["phlebotomy"],
                ),
                A(
                    "Phlebotomy means removing blood, and with it the iron it carries. The GARD summary says it is the "
                    "usual treatment: it prevents additional organ damage, although it doesn't reverse damage that has "
                    "already happened.",
                    [
                        Search(
                            "phlebotomy removing blood hemochromatosis treatment",
                            [(HH_GARD, "Treatment usually involves removing blood (phlebotomy)")],
                            k=3,
                        )
                    ],
                ),
                U("Where does the iron go normally? I thought the body recycled it."),
                A(
                    "It does. Red blood cells live up to about 120 days; when worn-out cells are broken down in the "
                    "bone marrow, liver and spleen, the iron from their hemoglobin is either stored in the liver or "
                    "spleen, mainly as ferritin or hemosiderin, or carried by transferrin back to the red bone "
                    "marrow to make new red cells. When new red cells are needed, iron is released from storage and "
                    "carried to the marrow, which is why taking blood out draws down the body's stores over time.",
                    [
                        Search(
                            "iron recycling red blood cells ferritin storage",
                            [
                                (
                                    RBC_LIFECYCLE_OS,
                                    "On average, less than 20 percent of the iron we consume is absorbed.",
                                ),
                                (LIVER_OS, "In the liver, proteins and iron are recycled"),
                            ],
                            k=3,
                        ),
                        Read(RBC_LIFECYCLE_OS, "Erythrocytes live up to 120 days", 4),
                    ],
                ),
            ],
        ),
        Session(
            "03",
            "family",
            "2025-03-12T20:15:00Z",
            [
                U("How did I even get this? Neither of my parents has ever had anything like it."),
                A(
                    "Type 1 hemochromatosis is inherited in an autosomal recessive way: to be affected you need a "
                    "mutation in both copies of the gene, one inherited from each parent. Your parents are most likely "
                    "carriers, and carriers typically have no signs or symptoms. When two carriers have children, each "
                    "child has a 25 percent chance of being affected, a 50 percent chance of being an unaffected "
                    "carrier, and a 25 percent chance of being neither.",
                    [
                        Search(
                            "hemochromatosis inheritance autosomal recessive carriers parents",
                            [
                                (HH_GARD, "Is hemochromatosis inherited?"),
                                (HH_GHR, "Types 1, 2, and 3 hemochromatosis are inherited in an autosomal recessive"),
                            ],
                            k=4,
                        ),
                        Read(HH_GARD, "Is hemochromatosis inherited?", 1),
                    ],
                ),
                U("So it was down to chance. Mum will be relieved it's nobody's fault."),
                A(
                    "Exactly: carriers usually have no signs at all, so nobody could have known or done anything "
                    "differently."
                ),
            ],
        ),
        Session(
            "04",
            "joints",
            "2025-03-26T07:30:00Z",
            [
                U(
                    "I teach PE and still run most mornings, and I coach my two, who are 15 and 12, at the local "
                    "running club. But my knuckles and knees have ached for about two years; my GP put it down to "
                    "arthritis. Is there anything I can do about the joints?",
                    ["joints", "kids"],
                ),
                A(
                    "Joint pain is one of the early symptoms listed for hereditary hemochromatosis, and arthritis "
                    "is among its later signs, so tell the doctor treating your hemochromatosis about those two "
                    "years of aches. In general, most kinds of arthritis cause pain and swelling in the joints, "
                    "where normally a smooth layer of articular cartilage lets the bones move against each other "
                    "without damage; osteoarthritis, the most common type, is often related to ageing or injury.",
                    [
                        Search(
                            "arthritis joint pain hemochromatosis",
                            [
                                (ARTHRITIS_MP, "Most kinds of arthritis cause pain and swelling in your joints."),
                                (HH_GHR, "Hereditary hemochromatosis is a disorder that causes the body to absorb"),
                                (SYNOVIAL_OS, "Friction between the bones at a synovial joint is prevented"),
                            ],
                            k=4,
                        )
                    ],
                ),
                U("Should I stop running?"),
                A(
                    "The pages I found don't answer that for your situation; it's a question for your GP or a "
                    "physiotherapist, who can look at which joints are affected and how."
                ),
            ],
        ),
        Session(
            "05",
            "life",
            "2025-04-09T19:00:00Z",
            [
                U("I want to understand what's in my food. Which foods are actually high in iron?"),
                A(
                    "Iron is found in meat, poultry, fish, shellfish, legumes, nuts, seeds, whole grains and dark "
                    "leafy green vegetables. Heme iron from animal foods such as meat, poultry and fish is absorbed "
                    "more efficiently than the non-heme iron in plant foods.",
                    [
                        Search(
                            "foods high in iron dietary sources",
                            [
                                (MINERALS_OS, "Iron | Meat, poultry, fish, shellfish"),
                                (IRON_MP, "Iron is a mineral that our bodies need"),
                                (RBC_LIFECYCLE_OS, "less than 20 percent of the iron we consume is absorbed."),
                            ],
                            k=4,
                        ),
                        Read(MINERALS_OS, "Trace Minerals", 3),
                    ],
                ),
                U(
                    "Shellfish, huh. My brother Declan and I never miss the harbour oyster festival in May; we eat "
                    "them raw by the dozen. And most mornings I take a multivitamin with iron plus a 1,000 mg "
                    "vitamin C tablet, a habit left over from marathon training.",
                    ["oysters", "brother", "supplements"],
                ),
                A(
                    "Two things from what I've read are relevant. Too much iron can damage your body, and taking "
                    "too many iron supplements can cause iron poisoning; and vitamin C helps the body absorb iron. "
                    "Take the multivitamin and the vitamin C tablet to your next hemochromatosis appointment so "
                    "your doctor can go through them with you.",
                    [
                        Search(
                            "vitamin C iron absorption supplements",
                            [
                                (VITC_MP, "It promotes healing and helps the body absorb iron."),
                                (IRON_MP, "Too much iron can damage your body."),
                            ],
                            k=3,
                        ),
                        Read(IRON_MP, "Iron is a mineral that our bodies need", 1),
                    ],
                ),
            ],
        ),
        Session(
            "06",
            "life",
            "2025-04-23T21:30:00Z",
            [
                U(
                    "Weekends I'll have three or four pints on Friday and again on Saturday. Is beer actually hard on "
                    "the liver?",
                    ["beer"],
                ),
                A(
                    "Heavy drinking can lead to liver disease, among other problems. For men under 65, moderate "
                    "drinking is defined as no more than four drinks a day or 14 a week, and anything beyond "
                    "moderate is risky. Some people shouldn't drink at all, including people with certain medical "
                    "conditions, so if you're unsure whether it's safe for you, ask your provider. In the US the "
                    "most common causes of cirrhosis, scarring of the liver, are chronic alcoholism and hepatitis.",
                    [
                        Search(
                            "alcohol liver damage cirrhosis moderate drinking",
                            [
                                (ALCOHOL_MP, "If you are like many Americans, you drink alcohol"),
                                (CIRRHOSIS_MP, "Cirrhosis is scarring of the liver.", "- Gallstones"),
                                (LIVER_MP, "Your liver is the largest organ inside your body."),
                            ],
                            k=4,
                        ),
                        Read(ALCOHOL_MP, "If you are like many Americans, you drink alcohol", 1),
                    ],
                ),
                U("My liver tests at diagnosis: I never actually asked what they showed. I should."),
                A(
                    "Worth asking: liver function tests check for liver damage, and knowing the result will help "
                    "decide what is sensible for you."
                ),
            ],
        ),
    ],
    items=[
        Item(
            "01",
            "The hospital now wants to look at my liver more closely, maybe even a biopsy. Is that an overreaction, "
            "given my numbers?",
            "No, it's reasonable. Your ferritin at diagnosis was about 1,100. NIDDK guidance treats serum ferritin "
            "above 300 in men as abnormal, and levels above 1,000 as indicating a high chance of iron overload "
            "and organ damage. Liver damage is the complication most often associated with hemochromatosis "
            "(iron in the liver causes cirrhosis, which raises the chance of liver cancer), and a liver biopsy "
            "shows how much iron has built up in the liver and whether there is damage. Ask what your liver "
            "function tests showed, too.",
            "2025-05-14T18:00:00Z",
            "interpretation",
            "initial",
            support=[HH_NIDDK],
            history=[LIVER_MP],
            reqs=[
                Req(
                    "Use his ferritin of about 1,100 at diagnosis.",
                    ["ferritin"],
                    [(HH_NIDDK, "indicate a high chance of iron overload and organ damage")],
                    "Bring in the actual value.",
                ),
                Req(
                    "Apply the thresholds: above 300 in men is abnormal, above 1,000 indicates a high chance of iron "
                    "overload and organ damage.",
                    ["ferritin", "hh"],
                    [(HH_NIDDK, "indicate a high chance of iron overload and organ damage")],
                    "Explain why his level justifies checking for organ damage.",
                ),
                Req(
                    "A liver biopsy shows how much iron has accumulated and whether there is liver damage, the "
                    "complication most often associated with hemochromatosis.",
                    ["hh"],
                    [
                        (HH_NIDDK, "The complication most often associated with hemochromatosis is liver damage."),
                        (HH_NIDDK, "- Liver biopsy."),
                        (LIVER_MP, "liver function tests can check for liver damage"),
                    ],
                    "Say the extra liver tests are reasonable.",
                ),
            ],
        ),
        Item(
            "02",
            "Should I keep up my morning supplement routine?",
            "Not as it is. You take a multivitamin that contains iron and a 1,000 mg vitamin C tablet. With "
            "hemochromatosis your body already absorbs too much iron (up to 30 percent of dietary iron instead of "
            "under 10 percent), and both NIDDK and NHLBI advise avoiding supplements that contain iron, including "
            "multivitamins with iron, and avoiding or limiting vitamin C supplements, because vitamin C increases "
            "iron absorption. Ask your doctor about stopping both and how much vitamin C from food is fine for "
            "you.",
            "2025-05-14T18:30:00Z",
            "safety",
            "initial",
            support=[HH_NIDDK, HH_NHLBI],
            history=[IRON_MP, VITC_MP],
            reqs=[
                Req(
                    "Identify the routine: a multivitamin containing iron plus a 1,000 mg vitamin C tablet.",
                    ["supplements"],
                    [(VITC_MP, "It promotes healing and helps the body absorb iron.")],
                    "Name both supplements.",
                ),
                Req(
                    "Avoid supplements containing iron, including multivitamins with iron.",
                    ["hh", "supplements"],
                    [
                        (HH_NIDDK, "- avoiding supplements that contain iron"),
                        (HH_NHLBI, "Avoid taking iron, including iron pills, iron injections, or multivitamins"),
                    ],
                    "Advise stopping the iron-containing multivitamin.",
                ),
                Req(
                    "Avoid vitamin C supplements or limit vitamin C, because it increases iron absorption; ask the "
                    "doctor how much is safe.",
                    ["hh", "supplements"],
                    [
                        (HH_NIDDK, "- avoiding supplements that contain vitamin C"),
                        (HH_NHLBI, "Limit your intake of vitamin C."),
                    ],
                    "Advise stopping the vitamin C tablet and checking with his doctor.",
                ),
            ],
        ),
        Item(
            "03",
            "The harbour festival is in two weeks. Is there anything I should keep in mind this year?",
            "Skip the raw oysters this year. The NHLBI advises people with hemochromatosis to avoid uncooked fish "
            "and shellfish, because some carry bacteria that can cause infections in people with chronic "
            "diseases such as hemochromatosis. Cooked seafood is the safer choice. And go easy on the drinks: "
            "people with hemochromatosis are advised to limit alcohol, because it increases the risk of liver "
            "disease.",
            "2025-05-15T12:00:00Z",
            "safety",
            "initial",
            support=[HH_NHLBI],
            history=[MINERALS_OS],
            reqs=[
                Req(
                    "Recall that at the festival Owen eats raw oysters by the dozen.",
                    ["oysters"],
                    [(MINERALS_OS, "Iron | Meat, poultry, fish, shellfish")],
                    "Identify raw oysters as the issue.",
                ),
                Req(
                    "Apply the rule: people with hemochromatosis should avoid uncooked fish and shellfish because "
                    "of bacteria that can cause infections in people with chronic diseases.",
                    ["hh", "oysters"],
                    [(HH_NHLBI, "Avoid uncooked fish and shellfish.")],
                    "Advise against raw oysters; cooked is safer.",
                ),
                Req(
                    "Mention limiting alcohol, since drinking raises the risk of liver disease.",
                    ["hh"],
                    [(HH_NHLBI, "Limit alcohol intake.")],
                    "Suggest limiting drinks at the festival.",
                ),
            ],
        ),
        Item(
            "04",
            "Declan's wedding is in June. How much can I safely drink at it?",
            "It depends on something you haven't found out yet: whether your liver is already damaged. People "
            "with hemochromatosis are advised to limit alcohol, because it increases the chance of cirrhosis and "
            "liver cancer and can worsen liver damage caused by iron, and to avoid alcohol entirely if they "
            "already have cirrhosis. You said you never asked what your liver tests showed. If they show "
            "cirrhosis, the advice is not to drink at all; if your liver is healthy, keep it to a little, well "
            "below your usual three or four pints, and ask your doctor what limit is right for you before the "
            "wedding.",
            "2025-05-16T20:00:00Z",
            "safety",
            "initial",
            support=[HH_NIDDK, HH_NHLBI],
            history=[ALCOHOL_MP, CIRRHOSIS_MP],
            reqs=[
                Req(
                    "Note his usual pattern of three or four pints on Friday and on Saturday nights.",
                    ["beer"],
                    [(ALCOHOL_MP, "For men under 65, it is no more than four drinks a day")],
                    "Bring in his drinking habit.",
                ),
                Req(
                    "Apply the rule: people with hemochromatosis should limit alcohol, which increases the chance "
                    "of cirrhosis and liver cancer and worsens iron-related liver damage.",
                    ["hh"],
                    [
                        (HH_NIDDK, "- limiting the amount of alcoholic beverages they drink"),
                        (HH_NHLBI, "Alcohol use can worsen liver damage and cirrhosis caused by hemochromatosis."),
                    ],
                    "Advise drinking little.",
                ),
                Req(
                    "Keep the unknown premise conditional: his liver test results are unknown (he never asked); with "
                    "cirrhosis, avoid alcohol entirely.",
                    ["hh"],
                    [(HH_NIDDK, "- avoiding alcoholic beverages entirely if they already have cirrhosis")],
                    "Give the cirrhosis branch and tell him to ask about his liver results first.",
                    extra_turns=["s-owen-06-t2"],
                ),
            ],
        ),
        Item(
            "05",
            "Should Declan be doing anything about this?",
            "Yes: he should get tested. Declan is your brother and has never been tested, and the NIDDK "
            "recommends that siblings of people with hemochromatosis have their blood tested for the C282Y "
            "mutation. Because your parents are most likely both carriers, each of their children had a 25 "
            "percent chance of inheriting two copies, as you did. Early diagnosis matters, because treating iron "
            "overload before organs are damaged prevents complications.",
            "2025-05-17T10:00:00Z",
            "planning",
            "initial",
            support=[HH_NIDDK],
            history=[HH_GARD],
            reqs=[
                Req(
                    "Identify Declan as Owen's brother, never tested.",
                    ["brother"],
                    [(HH_NIDDK, "- Siblings of people who have hemochromatosis should have their blood tested")],
                    "Resolve who Declan is.",
                ),
                Req(
                    "Apply the rule: siblings of people with hemochromatosis should have their blood tested for "
                    "the C282Y mutation.",
                    ["hh", "brother"],
                    [(HH_NIDDK, "- Siblings of people who have hemochromatosis should have their blood tested")],
                    "Recommend that Declan gets tested.",
                ),
                Req(
                    "Explain why: with two carrier parents each child has a 25 percent chance of being affected.",
                    ["hh"],
                    [(HH_GARD, "When 2 carriers of an autosomal recessive condition have children")],
                    "Give the reason for testing.",
                ),
            ],
        ),
        Item(
            "06",
            "What does all this mean for my two? Should they be checked?",
            "They should consider being tested: the NIDDK advises that children and other close relatives of "
            "people with hemochromatosis consider testing. Everyone inherits one HFE copy from each parent, and "
            "both of your copies carry C282Y, so each of your children has inherited one from you and is at least "
            "a carrier; carriers usually don't develop the disease. Whether either could have two copies depends "
            "on their mother's HFE genes, which you haven't mentioned: if she isn't a carrier, they are carriers "
            "only; if she is, a child could have inherited two copies. Testing answers that, and a genetic "
            "counselor can help. There's no rush: young children rarely develop hemochromatosis, and men usually "
            "don't have symptoms before 40.",
            "2025-05-17T10:30:00Z",
            "planning",
            "augmented",
            support=[HH_NIDDK, HH_NHLBI],
            history=[HH_GARD],
            reqs=[
                Req(
                    "Apply the rule: children of people with hemochromatosis should consider being tested.",
                    ["kids", "hh"],
                    [(HH_NIDDK, "- Parents, children, and other close relatives of people who have hemochromatosis")],
                    "Recommend testing for both children.",
                ),
                Req(
                    "Each child inherits one HFE copy from each parent; Owen has two C282Y copies, so each child has "
                    "one and is at least a carrier.",
                    ["hh", "kids"],
                    [
                        (HH_NIDDK, "People inherit two copies of the HFE gene"),
                        (HH_NHLBI, "Carriers usually don't develop the disease."),
                    ],
                    "Explain that the children are at least carriers.",
                ),
                Req(
                    "Keep the unknown premise conditional on the mother's carrier status, which was never stated.",
                    ["kids"],
                    [
                        (HH_NHLBI, "If two parents are carriers of the faulty HFE gene"),
                        (HH_GARD, "When 2 carriers of an autosomal recessive condition have children"),
                    ],
                    "Give both branches and suggest testing or genetic counseling.",
                ),
                Req(
                    "Note timing: young children rarely develop hemochromatosis; men usually show signs at 40-60.",
                    ["kids"],
                    [(HH_NHLBI, "Young children rarely develop hemochromatosis.")],
                    "Say there is no urgency, but testing is worthwhile.",
                ),
            ],
        ),
        Item(
            "07",
            "These weekly co-pays are really adding up. Is there any cheaper way to keep doing this?",
            "Possibly, yes. Your weekly sessions are therapeutic phlebotomy for your hemochromatosis, and it "
            "doesn't have to happen in a hospital unit: it is similar to donating blood and can be done at blood "
            "donation centers, hospital donation centers or a doctor's office. The NIDDK notes that many blood "
            "donation centers provide free phlebotomy treatment for people with hemochromatosis. Ask your "
            "doctor whether you can move your sessions to one, and check with your local center.",
            "2025-05-18T09:00:00Z",
            "planning",
            "initial",
            support=[HH_NIDDK, HH_NHLBI],
            history=[HH_GARD],
            reqs=[
                Req(
                    "Identify the weekly hospital phlebotomy for his hemochromatosis as the cost.",
                    ["phlebotomy", "hh"],
                    [
                        (HH_NIDDK, "Phlebotomy rids the body of extra iron."),
                        (HH_GARD, "Treatment usually involves removing blood (phlebotomy)"),
                    ],
                    "Name the treatment that costs him.",
                ),
                Req(
                    "Many blood donation centers provide free phlebotomy for people with hemochromatosis; it can be "
                    "done at blood donation centers, hospital donation centers or a doctor's office.",
                    ["phlebotomy"],
                    [
                        (HH_NIDDK, "Many blood donation centers provide free phlebotomy treatment"),
                        (HH_NHLBI, "The process is similar to donating blood"),
                    ],
                    "Suggest asking to move sessions to a blood donation center.",
                ),
            ],
        ),
        Item(
            "08",
            "How long am I going to be stuck going in every week?",
            "Probably months, possibly up to a year or a bit longer. The NIDDK says the schedule depends on how "
            "severe the iron overload is: typically a pint of blood once or twice a week for several months to a "
            "year, occasionally longer. Your starting ferritin of about 1,100 was high, so expect the longer end. "
            "Your ferritin will be checked periodically, and the goal is to bring it to the low end of the average "
            "range (about 25 to 50). After that you move to maintenance phlebotomy every few months (some people "
            "need it more often), with ferritin tests every 6 to 12 months to set the frequency; treatment often "
            "continues for life.",
            "2025-05-18T09:30:00Z",
            "planning",
            "initial",
            support=[HH_NIDDK, HH_NHLBI],
            history=[],
            reqs=[
                Req(
                    "Explain that the initial schedule depends on how severe the overload is: once or twice a week "
                    "for several months to a year, occasionally longer; his high ferritin points to the longer end.",
                    ["phlebotomy", "ferritin"],
                    [
                        (HH_NIDDK, "Based on the severity of the iron overload, a patient will have phlebotomy"),
                        (HH_NIDDK, "indicate a high chance of iron overload and organ damage"),
                    ],
                    "Give a realistic duration for the weekly phase.",
                ),
                Req(
                    "State the goal: ferritin at the low end of the average range (about 25 to 50), checked "
                    "periodically.",
                    ["phlebotomy"],
                    [(HH_NIDDK, "The goal is to bring serum ferritin levels to the low end of the average range")],
                    "Explain how the end of the weekly phase is decided.",
                ),
                Req(
                    "Describe maintenance: every few months (sometimes more often), ferritin tests every 6 to 12 "
                    "months; treatment often lifelong.",
                    [],
                    [
                        (HH_NIDDK, "patients may need maintenance phlebotomy treatment every few months"),
                        (HH_NHLBI, "As long as treatment continues, which often is for the rest of your life"),
                    ],
                    "Explain what comes after the weekly phase.",
                ),
            ],
        ),
        Item(
            "09",
            "Now that I'm being treated, will the aches in my hands and knees finally go away?",
            "Maybe not, unfortunately. Joint pain and arthritis are recognised features of hemochromatosis, and "
            "treatment helps most of its complications improve, but the NIDDK notes that arthritis usually does "
            "not improve even after phlebotomy removes the extra iron. Treatment is still worth it because it "
            "prevents further organ damage. Ask your GP or a rheumatologist about treating the arthritis itself.",
            "2025-05-19T07:00:00Z",
            "interpretation",
            "initial",
            support=[HH_NIDDK],
            history=[HH_GHR, ARTHRITIS_MP],
            reqs=[
                Req(
                    "Link his two years of joint aches and arthritis diagnosis to hemochromatosis.",
                    ["joints", "hh"],
                    [
                        (HH_GHR, "Early symptoms of hereditary hemochromatosis are nonspecific"),
                        (HH_NIDDK, "- arthritis"),
                    ],
                    "Connect the symptom to the condition.",
                ),
                Req(
                    "Apply the rule: treatment helps most complications improve, but arthritis usually does not "
                    "improve even after phlebotomy.",
                    ["joints"],
                    [(HH_NIDDK, "Arthritis usually does not improve even after phlebotomy removes extra iron.")],
                    "Set realistic expectations and suggest separate arthritis care.",
                ),
            ],
        ),
        Item(
            "10",
            "I'm redoing my weekly shop and my routine to suit the diagnosis. What should I cut or change?",
            "Four things stand out. Drop the multivitamin with iron and the vitamin C tablet: people with "
            "hemochromatosis should avoid supplements containing iron, and vitamin C increases iron absorption. "
            "Eat only moderate amounts of iron-rich foods such as red meat and organ meat. Skip raw oysters and "
            "other uncooked fish and shellfish, which can carry bacteria that cause infections in people with "
            "hemochromatosis. And cut back the weekend pints: limiting alcohol protects your liver, and if you "
            "turn out to have cirrhosis, the advice is to avoid alcohol completely.",
            "2025-05-19T19:00:00Z",
            "planning",
            "augmented",
            support=[HH_NIDDK, HH_NHLBI],
            history=[IRON_MP],
            reqs=[
                Req(
                    "Supplements: stop the iron-containing multivitamin and the vitamin C tablet.",
                    ["supplements", "hh"],
                    [
                        (
                            HH_NIDDK,
                            "- avoiding supplements that contain iron",
                            "- avoiding supplements that contain vitamin C",
                        )
                    ],
                    "Advise dropping both supplements.",
                ),
                Req(
                    "Food: moderate amounts of iron-rich foods such as red meat and organ meat.",
                    ["hh"],
                    [(HH_NIDDK, "- eating only moderate amounts of iron-rich foods")],
                    "Advise moderating iron-rich foods.",
                ),
                Req(
                    "Raw oysters: avoid uncooked fish and shellfish.",
                    ["oysters"],
                    [(HH_NHLBI, "Avoid uncooked fish and shellfish.")],
                    "Advise against raw shellfish.",
                ),
                Req(
                    "Beer: limit alcohol; avoid it entirely if cirrhosis is found.",
                    ["beer"],
                    [
                        (
                            HH_NIDDK,
                            "- limiting the amount of alcoholic beverages they drink",
                            "- avoiding alcoholic beverages entirely if they already have cirrhosis",
                        )
                    ],
                    "Advise cutting back his weekend drinking.",
                ),
            ],
        ),
    ],
)
