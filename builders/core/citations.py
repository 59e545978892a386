"""BibTeX of the benchmarks and the papers whose noise models and miners noisecraft follows.

One place for every citation, so cards of sources, noise models and mined dictionaries agree.
"""

BELINKOV_BISK_CITATION = """@inproceedings{belinkov2018synthetic,
  title = {Synthetic and Natural Noise Both Break Neural Machine Translation},
  author = {Belinkov, Yonatan and Bisk, Yonatan},
  booktitle = {International Conference on Learning Representations},
  year = {2018}
}"""

GLUE_CITATION = """@inproceedings{wang-etal-2018-glue,
  title = {{GLUE}: A Multi-Task Benchmark and Analysis Platform for Natural Language Understanding},
  author = {Wang, Alex and Singh, Amanpreet and Michael, Julian and Hill, Felix and Levy, Omer and Bowman, Samuel},
  booktitle = {Proceedings of the 2018 EMNLP Workshop BlackboxNLP},
  year = {2018},
  pages = {353--355}
}"""

LENGTHENING_CITATION = """@inproceedings{brody-diakopoulos-2011-cooooooooooooooollllllllllllll,
  title = {Cooooooooooooooollllllllllllll!!!!!!!!!!!!!! Using Word Lengthening to Detect Sentiment in Microblogs},
  author = {Brody, Samuel and Diakopoulos, Nicholas},
  booktitle = {Proceedings of the 2011 Conference on Empirical Methods in Natural Language Processing},
  year = {2011},
  pages = {562--570}
}"""

NOISEQA_CITATION = """@inproceedings{ravichander-etal-2021-noiseqa,
  title = {{NoiseQA}: Challenge Set Evaluation for User-Centric Question Answering},
  author = {Ravichander, Abhilasha and Dalmia, Siddharth and Ryskina, Maria and
            Metze, Florian and Hovy, Eduard and Black, Alan W},
  booktitle = {Proceedings of the 16th Conference of the European Chapter of the Association for Computational Linguistics},
  year = {2021},
  pages = {2976--2992}
}"""

SQUAD_CITATION = """@inproceedings{rajpurkar-etal-2016-squad,
  title = {{SQ}u{AD}: 100,000+ Questions for Machine Comprehension of Text},
  author = {Rajpurkar, Pranav and Zhang, Jian and Lopyrev, Konstantin and Liang, Percy},
  booktitle = {Proceedings of the 2016 Conference on Empirical Methods in Natural Language Processing},
  year = {2016},
  pages = {2383--2392}
}"""

WIKIANN_CITATION = """@inproceedings{pan-etal-2017-cross,
  title = {Cross-lingual Name Tagging and Linking for 282 Languages},
  author = {Pan, Xiaoman and Zhang, Boliang and May, Jonathan and Nothman, Joel and Knight, Kevin and Ji, Heng},
  booktitle = {Proceedings of the 55th Annual Meeting of the Association for Computational Linguistics},
  year = {2017},
  pages = {1946--1958}
}
@inproceedings{rahimi-etal-2019-massively,
  title = {Massively Multilingual Transfer for {NER}},
  author = {Rahimi, Afshin and Li, Yuan and Cohn, Trevor},
  booktitle = {Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics},
  year = {2019},
  pages = {151--164}
}"""

WIKIEDIT_CITATION = """@inproceedings{stickland-etal-2023-robustification,
  title = {Robustification of Multilingual Language Models to Real-world Noise in Crosslingual Zero-shot Settings
           with Robust Contrastive Pretraining},
  author = {Stickland, Asa Cooper and Sengupta, Sailik and Krone, Jason and Mansour, Saab and He, He},
  booktitle = {Proceedings of the 17th Conference of the European Chapter of the Association for Computational Linguistics},
  year = {2023},
  pages = {1375--1391}
}"""

WIKIPEDIA_MISSPELLINGS_CITATION = """@misc{wikipedia-common-misspellings,
  title = {Wikipedia:Lists of common misspellings/For machines},
  author = {{Wikipedia contributors}},
  howpublished = {Wikipedia, The Free Encyclopedia},
  note = {CC BY-SA}
}"""

WORD_SALAD_CITATION = """@inproceedings{gupta2021bert,
  title = {{BERT} \\& Family Eat Word Salad: Experiments with Text Understanding},
  author = {Gupta, Ashim and Kvernadze, Giorgi and Srikumar, Vivek},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  volume = {35},
  number = {14},
  pages = {12946--12954},
  year = {2021}
}"""

XNLI_CITATION = """@inproceedings{conneau-etal-2018-xnli,
  title = {{XNLI}: Evaluating Cross-lingual Sentence Representations},
  author = {Conneau, Alexis and Rinott, Ruty and Lample, Guillaume and Williams, Adina and
            Bowman, Samuel and Schwenk, Holger and Stoyanov, Veselin},
  booktitle = {Proceedings of the 2018 Conference on Empirical Methods in Natural Language Processing},
  year = {2018},
  pages = {2475--2485}
}"""

XQUAD_CITATION = """@inproceedings{artetxe-etal-2020-cross,
  title = {On the Cross-lingual Transferability of Monolingual Representations},
  author = {Artetxe, Mikel and Ruder, Sebastian and Yogatama, Dani},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
  pages = {4623--4637}
}"""

SENTIMENT140_CITATION = """@techreport{go2009twitter,
  title = {Twitter Sentiment Classification using Distant Supervision},
  author = {Go, Alec and Bhayani, Richa and Huang, Lei},
  institution = {Stanford University},
  type = {CS224N Project Report},
  year = {2009}
}"""

OPINION_LEXICON_CITATION = """@inproceedings{hu2004mining,
  title = {Mining and Summarizing Customer Reviews},
  author = {Hu, Minqing and Liu, Bing},
  booktitle = {Proceedings of the Tenth ACM SIGKDD International Conference on Knowledge Discovery and Data Mining},
  year = {2004},
  pages = {168--177}
}"""

OPUS_MT_CITATION = """@inproceedings{tiedemann-thottingal-2020-opus,
  title = {{OPUS}-{MT} -- Building open translation services for the World},
  author = {Tiedemann, J{\\"o}rg and Thottingal, Santhosh},
  booktitle = {Proceedings of the 22nd Annual Conference of the European Association for Machine Translation},
  year = {2020},
  pages = {479--480}
}"""

YIN2020_CITATION = """@inproceedings{yin-etal-2020-robustness,
  title = {On the Robustness of Language Encoders against Grammatical Errors},
  author = {Yin, Fan and Long, Quanyu and Meng, Tao and Chang, Kai-Wei},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
  pages = {3386--3403}
}"""

CONLL2014_CITATION = """@inproceedings{ng-etal-2014-conll,
  title = {The {CoNLL}-2014 Shared Task on Grammatical Error Correction},
  author = {Ng, Hwee Tou and Wu, Siew Mei and Briscoe, Ted and Hadiwinoto, Christian and Susanto, Raymond Hendy and
            Bryant, Christopher},
  booktitle = {Proceedings of the Eighteenth Conference on Computational Natural Language Learning: Shared Task},
  year = {2014},
  pages = {1--14}
}"""

BEA2019_CITATION = """@inproceedings{bryant-etal-2019-bea,
  title = {The {BEA}-2019 Shared Task on Grammatical Error Correction},
  author = {Bryant, Christopher and Felice, Mariano and Andersen, {\\O}istein E. and Briscoe, Ted},
  booktitle = {Proceedings of the Fourteenth Workshop on Innovative Use of NLP for Building Educational Applications},
  year = {2019},
  pages = {52--75}
}"""

ERRANT_CITATION = """@inproceedings{bryant-etal-2017-automatic,
  title = {Automatic Annotation and Evaluation of Error Types for Grammatical Error Correction},
  author = {Bryant, Christopher and Felice, Mariano and Briscoe, Ted},
  booktitle = {Proceedings of the 55th Annual Meeting of the Association for Computational Linguistics},
  year = {2017},
  pages = {793--805}
}"""

TEXTATTACK_CITATION = """@inproceedings{morris-etal-2020-textattack,
  title = {{TextAttack}: A Framework for Adversarial Attacks, Data Augmentation, and Adversarial Training in {NLP}},
  author = {Morris, John and Lifland, Eli and Yoo, Jin Yong and Grigsby, Jake and Jin, Di and Qi, Yanjun},
  booktitle = {Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing: System Demonstrations},
  year = {2020},
  pages = {119--126}
}"""
