S I am interested on the history of a city .
A 3 4|||Prep|||in|||REQUIRED|||-NONE-|||0
A 7 8|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0
A 3 4|||Prep|||in|||REQUIRED|||-NONE-|||1

S He have many friend in school .
A 1 2|||SVA|||has|||REQUIRED|||-NONE-|||0
A 3 4|||Nn|||friends|||REQUIRED|||-NONE-|||0
A 5 5|||ArtOrDet|||the||his|||REQUIRED|||-NONE-|||0

S Yesterday we go to the museum and we see very old paintings .
A 2 3|||Vt|||went|||REQUIRED|||-NONE-|||0
A 8 9|||Vform|||saw|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

S The people always is happy and also they sing .
A 2 4|||WOadv|||is always|||REQUIRED|||-NONE-|||0
A 6 7|||Trans||||||REQUIRED|||-NONE-|||0
A 1 2|||Wci|||residents|||REQUIRED|||-NONE-|||0

S This is a important problem for a society in these days .
A 2 3|||ArtOrDet|||an|||REQUIRED|||-NONE-|||0
A 6 7|||ArtOrDet||||||REQUIRED|||-NONE-|||0
A 7 8|||Mec|||Society|||REQUIRED|||-NONE-|||0

S She discussed about the plan with her big family .
A 2 3|||U:PREP||||||REQUIRED|||-NONE-|||0
A 7 8|||R:ADJ|||large|||REQUIRED|||-NONE-|||0
A 5 5|||M:DET|||the|||REQUIRED|||-NONE-|||1

S My brother play football every days .
A 2 3|||R:VERB:SVA|||plays|||REQUIRED|||-NONE-|||0
A 5 6|||R:NOUN:NUM|||day|||REQUIRED|||-NONE-|||0
A 3 3|||M:PUNCT|||,|||REQUIRED|||-NONE-|||0

S We was going to the beach but it rained .
A 1 2|||R:VERB:SVA|||were|||REQUIRED|||-NONE-|||0
A 6 7|||R:CONJ|||and|||REQUIRED|||-NONE-|||0
A 4 5|||R:DET|||a|||REQUIRED|||-NONE-|||0

S I have seen him yesterday in a park .
A 1 3|||R:VERB:TENSE|||saw|||REQUIRED|||-NONE-|||0
A 6 7|||R:DET|||the|||REQUIRED|||-NONE-|||0
A 0 0|||UNK|||I|||REQUIRED|||-NONE-|||0

S It was really a good film and very exciting too .
A 2 4|||R:WO|||a really|||REQUIRED|||-NONE-|||0
A 7 8|||R:OTHER|||quite|||REQUIRED|||-NONE-|||0
