"""Staff reports on what students did: item statistics (per question, choice, language and
translation revision) and the gradebook, each a selector module with its view module."""
