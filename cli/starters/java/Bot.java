// {{name}}: a Sushi Go! bot written in Java.
//
// The arena starts this program once per game, in its folder, and talks JSON lines on its
// stdin and stdout (docs/bots.md, "Any language"; INTERFACES.md has the contract):
//   {"type": "new_game", "obs": OBS, "seed": N}   once, before the first pick
//   {"type": "pick", "obs": OBS}                  answer one line: {"pick": "tempura"}
//                                                 or {"pick": ["wasabi", "squid_nigiri"]}
//   {"type": "end_game", "result": RESULT}        no answer; then stdin ends
// Anything else on stdout is a protocol fault: debug with System.err (the bot's log).
//
// This starter picks greedily, as `arena new-bot` writes a Python bot: each card's rough worth
// for the cards already in front of it, ties broken by its own random draws (seeded by
// new_game's seed, so games replay the same). No library: the small JSON reader below reads
// any JSON the arena sends (objects become Maps, arrays Lists, numbers their text).

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Bot {
    // ------------------------------------------------------------ a minimal JSON reader
    static final class Reader {
        final String text;
        int at;

        Reader(String text) { this.text = text; }

        void ws() {
            while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
        }

        void eat(char c) {
            ws();
            if (at >= text.length() || text.charAt(at) != c)
                throw new IllegalArgumentException("expected '" + c + "' at " + at);
            at++;
        }

        Object value() {
            ws();
            if (at >= text.length()) throw new IllegalArgumentException("unexpected end");
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                at++;
                ws();
                if (text.charAt(at) == '}') { at++; return map; }
                while (true) {
                    ws();
                    String key = string();
                    eat(':');
                    map.put(key, value());
                    ws();
                    if (text.charAt(at) == ',') { at++; continue; }
                    eat('}');
                    return map;
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                at++;
                ws();
                if (text.charAt(at) == ']') { at++; return list; }
                while (true) {
                    list.add(value());
                    ws();
                    if (text.charAt(at) == ',') { at++; continue; }
                    eat(']');
                    return list;
                }
            }
            if (c == '"') return string();
            int start = at;
            while (at < text.length() && ",]} \t\r\n".indexOf(text.charAt(at)) < 0) at++;
            String word = text.substring(start, at);
            switch (word) {
                case "null": return null;
                case "true": return Boolean.TRUE;
                case "false": return Boolean.FALSE;
                default: return word; // a number, as its text (a seed may not fit a long)
            }
        }

        String string() {
            eat('"');
            StringBuilder out = new StringBuilder();
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') return out.toString();
                if (c != '\\') { out.append(c); continue; }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u': out.append((char) Integer.parseInt(text.substring(at, at + 4), 16)); at += 4; break;
                    default: out.append(e);
                }
            }
            throw new IllegalArgumentException("unfinished string");
        }
    }

    // ------------------------------------------------------------ the strategy
    static long rng = 88172645463325252L;

    static double random() { // xorshift64: reproducible, seeded by new_game
        rng ^= rng << 13;
        rng ^= rng >>> 7;
        rng ^= rng << 17;
        return (rng >>> 11) / (double) (1L << 53);
    }

    static final int[] DUMPLING_POINTS = {0, 1, 3, 6, 10, 15};

    static int count(List<String> cards, String name) {
        int n = 0;
        for (String c : cards) if (c.equals(name)) n++;
        return n;
    }

    static int nigiri(String card) {
        switch (card) {
            case "egg_nigiri": return 1;
            case "salmon_nigiri": return 2;
            case "squid_nigiri": return 3;
            default: return 0;
        }
    }

    /** A rough worth of card for my cards of this round (mine). */
    static int value(String card, List<String> mine, int picksLeft) {
        switch (card) {
            case "tempura": return count(mine, "tempura") % 2 == 1 ? 5 : 2;
            case "sashimi": return count(mine, "sashimi") % 3 == 2 ? 10 : (picksLeft >= 2 ? 3 : 0);
            case "dumpling": {
                int n = Math.min(count(mine, "dumpling"), 4);
                return DUMPLING_POINTS[n + 1] - DUMPLING_POINTS[n];
            }
            case "wasabi": return picksLeft >= 3 ? 3 : 0;
            case "maki1": case "maki2": case "maki3": return card.charAt(4) - '0'; // roll icons
            case "pudding": return 2;
            default:
                if (nigiri(card) > 0) {
                    int placed = 0;
                    for (String c : mine) if (nigiri(c) > 0) placed++;
                    return nigiri(card) * (count(mine, "wasabi") > placed ? 3 : 1);
                }
                return 0; // chopsticks, soy_sauce: worth nothing in this simple bot
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Object list) {
        List<String> out = new ArrayList<>();
        if (list instanceof List) for (Object o : (List<Object>) list) if (o instanceof String) out.add((String) o);
        return out;
    }

    static String quoted(String card) {
        return "\"" + card.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The answer to a pick: one line of JSON. */
    @SuppressWarnings("unchecked")
    static String pick(Map<String, Object> obs) {
        List<String> hand = strings(obs.get("hand"));
        int seat = Integer.parseInt(String.valueOf(obs.getOrDefault("seat", "0")));
        List<Object> tableaux = (List<Object>) obs.getOrDefault("tableaux", new ArrayList<>());
        List<String> mine = seat < tableaux.size() ? strings(tableaux.get(seat)) : new ArrayList<>();
        int picksLeft = hand.size() - 1;
        // Distinct cards in hand order, best first; random draws break ties.
        List<String> kinds = new ArrayList<>();
        List<Double> keys = new ArrayList<>();
        for (String card : hand) {
            if (kinds.contains(card)) continue;
            kinds.add(card);
            keys.add(value(card, mine, picksLeft) + random());
        }
        int best = 0, second = -1;
        for (int i = 1; i < kinds.size(); i++) if (keys.get(i) > keys.get(best)) best = i;
        for (int i = 0; i < kinds.size(); i++)
            if (i != best && (second < 0 || keys.get(i) > keys.get(second))) second = i;
        if (Boolean.TRUE.equals(obs.get("can_use_chopsticks")) && second >= 0) {
            List<String> after = new ArrayList<>(mine);
            after.add(kinds.get(best));
            if (value(kinds.get(second), after, picksLeft - 1) >= 5)
                return "{\"pick\": [" + quoted(kinds.get(best)) + ", " + quoted(kinds.get(second)) + "]}";
        }
        return "{\"pick\": " + quoted(kinds.get(best)) + "}";
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> message = (Map<String, Object>) new Reader(line).value();
            Object type = message.get("type");
            if ("new_game".equals(type)) {
                long folded = 0; // any integer, its digits folded into 64 bits
                for (char d : String.valueOf(message.get("seed")).toCharArray())
                    if (d >= '0' && d <= '9') folded = folded * 10 + (d - '0');
                rng = folded != 0 ? folded : 88172645463325252L;
            } else if ("pick".equals(type)) {
                System.out.println(pick((Map<String, Object>) message.get("obs")));
                System.out.flush(); // the arena waits for this line
            } // end_game: nothing to answer
        }
    }
}
