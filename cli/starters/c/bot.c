/* {{name}}: a Sushi Go! bot written in C.
 *
 * The arena starts this program once per game, in its folder, and talks JSON lines on its
 * stdin and stdout (docs/bots.md, "Any language"; INTERFACES.md has the contract):
 *   {"type": "new_game", "obs": OBS, "seed": N}   once, before the first pick
 *   {"type": "pick", "obs": OBS}                  answer one line: {"pick": "tempura"}
 *                                                 or {"pick": ["wasabi", "squid_nigiri"]}
 *   {"type": "end_game", "result": RESULT}        no answer; then stdin ends
 * Anything else on stdout is a protocol fault: print your debugging on stderr (the bot's log).
 *
 * This starter picks greedily, as `arena new-bot` writes a Python bot: each card's rough worth
 * for the cards already in front of it, ties broken by its own random draws (seeded by
 * new_game's seed, so games replay the same). The JSON reader below handles any JSON the
 * arena sends (whitespace, escapes, keys in any order) without a library.
 *
 * Build: make   (or: gcc -O2 -o {{name}} bot.c)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CARDS 64  /* cards in a hand or a tableau */
#define MAX_SEATS 16
#define NAME_LEN 32   /* card names are short ASCII words */

typedef char Card[NAME_LEN];

/* What a message holds that this bot uses. */
typedef struct {
    char type[16];
    uint64_t seed;
    int seat;
    int can_use_chopsticks;
    int hand_len;
    Card hand[MAX_CARDS];
    int seats;
    int tableau_len[MAX_SEATS];
    Card tableaux[MAX_SEATS][MAX_CARDS];
} Message;

/* ---------------------------------------------------------------- a minimal JSON reader */
static const char *at;  /* the next character of the line being read */
static int failed;

static void skip_ws(void) {
    while (*at == ' ' || *at == '\t' || *at == '\r' || *at == '\n') at++;
}

static int expect(char c) {
    skip_ws();
    if (*at != c) { failed = 1; return 0; }
    at++;
    return 1;
}

/* A string into out (cut at size - 1 bytes; escapes decoded, \u as '?'). */
static void read_string(char *out, size_t size) {
    size_t n = 0;
    if (!expect('"')) return;
    while (*at && *at != '"') {
        char c = *at++;
        if (c == '\\') {
            c = *at ? *at++ : 0;
            if (c == 'n') c = '\n'; else if (c == 't') c = '\t';
            else if (c == 'b') c = '\b'; else if (c == 'f') c = '\f'; else if (c == 'r') c = '\r';
            else if (c == 'u') { for (int i = 0; i < 4 && *at; i++) at++; c = '?'; }
        }
        if (out && n + 1 < size) out[n++] = c;
    }
    if (out) out[n] = 0;
    if (*at == '"') at++; else failed = 1;
}

static void skip_value(void);

/* Calls each(key) for every key of an object; each reads or skips the value. */
static void read_object(void (*each)(const char *key, void *into), void *into) {
    char key[64];
    if (!expect('{')) return;
    skip_ws();
    if (*at == '}') { at++; return; }
    while (!failed) {
        read_string(key, sizeof key);
        if (!expect(':')) return;
        each(key, into);
        skip_ws();
        if (*at == ',') { at++; continue; }
        expect('}');
        return;
    }
}

static void skip_key(const char *key, void *into) { (void)key; (void)into; skip_value(); }

static void skip_value(void) {
    skip_ws();
    if (*at == '"') { read_string(NULL, 0); return; }
    if (*at == '{') { read_object(skip_key, NULL); return; }
    if (*at == '[') {
        at++;
        skip_ws();
        if (*at == ']') { at++; return; }
        while (!failed) {
            skip_value();
            skip_ws();
            if (*at == ',') { at++; continue; }
            expect(']');
            return;
        }
        return;
    }
    /* a number, true, false or null */
    if (!strchr("-0123456789tfn", *at) || !*at) { failed = 1; return; }
    while (*at && !strchr(",]} \t\r\n", *at)) at++;
}

/* An array of strings into cards; returns how many (extra ones skipped). */
static int read_cards(Card *cards) {
    int n = 0;
    if (!expect('[')) return 0;
    skip_ws();
    if (*at == ']') { at++; return 0; }
    while (!failed) {
        if (n < MAX_CARDS) read_string(cards[n++], NAME_LEN); else skip_value();
        skip_ws();
        if (*at == ',') { at++; continue; }
        expect(']');
        break;
    }
    return n;
}

static void obs_key(const char *key, void *into) {
    Message *m = into;
    skip_ws();
    if (!strcmp(key, "seat")) {
        m->seat = (int)strtol(at, NULL, 10);
        skip_value();
    } else if (!strcmp(key, "can_use_chopsticks")) {
        m->can_use_chopsticks = !strncmp(at, "true", 4);
        skip_value();
    } else if (!strcmp(key, "hand")) {
        m->hand_len = read_cards(m->hand);
    } else if (!strcmp(key, "tableaux")) {
        if (!expect('[')) return;
        skip_ws();
        if (*at == ']') { at++; return; }
        while (!failed) {
            if (m->seats < MAX_SEATS) {
                m->tableau_len[m->seats] = read_cards(m->tableaux[m->seats]);
                m->seats++;
            } else {
                skip_value();
            }
            skip_ws();
            if (*at == ',') { at++; continue; }
            expect(']');
            return;
        }
    } else {
        skip_value();
    }
}

static void message_key(const char *key, void *into) {
    Message *m = into;
    skip_ws();
    if (!strcmp(key, "type")) {
        read_string(m->type, sizeof m->type);
    } else if (!strcmp(key, "seed")) {
        for (const char *d = at; *d >= '0' && *d <= '9'; d++) m->seed = m->seed * 10 + (uint64_t)(*d - '0');
        skip_value();
    } else if (!strcmp(key, "obs")) {
        read_object(obs_key, m);
    } else {
        skip_value();  /* end_game's result, and anything a later arena adds */
    }
}

/* ---------------------------------------------------------------- the strategy */
static uint64_t rng_state = 88172645463325252ull;

static double random01(void) {  /* xorshift64: reproducible, seeded by new_game */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static int count(Card *cards, int n, const char *name) {
    int k = 0;
    for (int i = 0; i < n; i++) k += !strcmp(cards[i], name);
    return k;
}

static int nigiri(const char *card) {
    if (!strcmp(card, "egg_nigiri")) return 1;
    if (!strcmp(card, "salmon_nigiri")) return 2;
    if (!strcmp(card, "squid_nigiri")) return 3;
    return 0;
}

/* A rough worth of card for my cards of this round (mine). */
static int value(const char *card, Card *mine, int n, int picks_left) {
    static const int dumpling_points[] = {0, 1, 3, 6, 10, 15};
    if (!strcmp(card, "tempura")) return count(mine, n, "tempura") % 2 ? 5 : 2;
    if (!strcmp(card, "sashimi"))
        return count(mine, n, "sashimi") % 3 == 2 ? 10 : (picks_left >= 2 ? 3 : 0);
    if (!strcmp(card, "dumpling")) {
        int k = count(mine, n, "dumpling");
        if (k > 4) k = 4;
        return dumpling_points[k + 1] - dumpling_points[k];
    }
    if (nigiri(card)) {
        int placed = 0;
        for (int i = 0; i < n; i++) placed += nigiri(mine[i]) > 0;
        return nigiri(card) * (count(mine, n, "wasabi") > placed ? 3 : 1);
    }
    if (!strcmp(card, "wasabi")) return picks_left >= 3 ? 3 : 0;
    if (!strncmp(card, "maki", 4)) return atoi(card + 4);  /* roll icons */
    if (!strcmp(card, "pudding")) return 2;
    return 0;  /* chopsticks, soy_sauce: worth nothing in this simple bot */
}

static void answer_pick(Message *m) {
    static Card mine[MAX_CARDS + 1];
    int n = m->seat >= 0 && m->seat < m->seats ? m->tableau_len[m->seat] : 0;
    memcpy(mine, m->tableaux[m->seat < MAX_SEATS && m->seat >= 0 ? m->seat : 0], sizeof(Card) * (size_t)n);
    int picks_left = m->hand_len - 1;
    int best = -1, second = -1;
    double best_key = -1, second_key = -1;
    for (int i = 0; i < m->hand_len; i++) {
        int seen = 0;  /* distinct cards, in hand order */
        for (int j = 0; j < i; j++) seen |= !strcmp(m->hand[i], m->hand[j]);
        if (seen) continue;
        double key = value(m->hand[i], mine, n, picks_left) + random01();  /* ties: random */
        if (key > best_key) {
            second = best; second_key = best_key; best = i; best_key = key;
        } else if (key > second_key) {
            second = i; second_key = key;
        }
    }
    if (best < 0) { fprintf(stderr, "no hand in the pick message\n"); exit(1); }
    if (m->can_use_chopsticks && second >= 0) {
        strcpy(mine[n], m->hand[best]);
        if (value(m->hand[second], mine, n + 1, picks_left - 1) >= 5) {
            printf("{\"pick\": [\"%s\", \"%s\"]}\n", m->hand[best], m->hand[second]);
            return;
        }
    }
    printf("{\"pick\": \"%s\"}\n", m->hand[best]);
}

/* ---------------------------------------------------------------- the loop */
static char line[1 << 20];  /* a message is a few KiB */
static Message message;

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        memset(&message, 0, sizeof message);
        at = line;
        failed = 0;
        read_object(message_key, &message);
        if (failed) {
            fprintf(stderr, "cannot read the message: %.80s\n", line);
            return 1;
        }
        if (!strcmp(message.type, "new_game")) {
            rng_state = message.seed ? message.seed : 88172645463325252ull;
        } else if (!strcmp(message.type, "pick")) {
            answer_pick(&message);
            fflush(stdout);  /* the arena waits for this line */
        }  /* end_game: nothing to answer */
    }
    return 0;
}
