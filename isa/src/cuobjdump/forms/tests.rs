//! The form table's own checks: every bit of a form fixed or owned by
//! exactly one field, no word two forms take, random words of each form
//! read back as they print, and words of FlexGripPlus' applications in
//! the listing's text.

use rand::{Rng, SeedableRng};

use super::*;

#[test]
fn every_bit_of_a_form_is_fixed_or_one_fields() {
    for form in FORMS.iter() {
        let full = if form.size == 64 {
            u64::MAX
        } else {
            (1u64 << form.size) - 1
        };
        let mut seen = 0u64;
        for (name, field) in &form.fields {
            let bits = field.bits();
            assert_eq!(
                bits & seen,
                0,
                "{}: {name} overlaps another field",
                form.name
            );
            assert_eq!(bits & !full, 0, "{}: {name} is outside the form", form.name);
            seen |= bits;
        }
        assert_eq!(
            seen & form.mask,
            0,
            "{}: a field in the fixed bits",
            form.name
        );
        assert_eq!(
            seen | form.mask,
            full,
            "{}: bits neither fixed nor a field's",
            form.name
        );
    }
}

#[test]
fn no_word_matches_two_forms_by_their_fixed_bits() {
    let forms: Vec<&Form> = FORMS.iter().collect();
    for (i, a) in forms.iter().enumerate() {
        for b in &forms[i + 1..] {
            if a.size != b.size {
                continue;
            }
            let both = a.mask & b.mask;
            if (a.value ^ b.value) & both != 0 {
                continue;
            }
            // One's fixed bits imply the other's exclusion.
            let excluded = |x: &Form, y: &Form| {
                x.exclude
                    .iter()
                    .any(|&(m, v)| m & y.mask == m && y.value & m == v)
            };
            assert!(
                excluded(a, b) || excluded(b, a),
                "{} and {} can match one word",
                a.name,
                b.name
            );
        }
    }
}

#[test]
fn random_words_of_every_form_read_back_as_they_print() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let (mut printable, mut total) = (0, 0);
    for form in FORMS.iter() {
        let owned = !form.mask
            & if form.size == 64 {
                u64::MAX
            } else {
                (1 << form.size) - 1
            };
        for _ in 0..500 {
            let mut r: u64 = rng.gen();
            if rng.gen_bool(0.7) {
                r &= rng.gen::<u64>() & rng.gen::<u64>();
            }
            let v = form.value | (r & owned);
            let words = match form.size {
                32 => vec![v as u32],
                _ => vec![v as u32, (v >> 32) as u32],
            };
            total += 1;
            let Ok(text) = print(&words) else {
                continue;
            };
            printable += 1;
            assert_eq!(
                assemble(&text),
                Ok(words.clone()),
                "{}: `{text}`",
                form.name
            );
        }
    }
    assert!(printable * 2 > total, "{printable} of {total} printable");
}

#[test]
fn words_print_as_the_listings_give_them() {
    for (words, text) in [
        (
            &[0xc081_0205, 0x0040_0680][..],
            "FMUL R1 (C0.NEU), R1, c [0x1] [0x1]",
        ),
        (&[0x1000_a003, 0x0000_0280], "BRA C0.NE, 0x50"),
        (
            &[0x307c_05fd, 0x6c01_07c8],
            "ISET.S32.C0 o [0x7f], R2, R124, GT",
        ),
        (&[0x3000_162d, 0x0402_8780], "IADD R11, -R11, R10"),
        (&[0x2102_e800], "IADD32 R0, g [0x4], R2"),
        (&[0xb000_8a15, 0x03f8_0003], "FADD32I R5, -R5, 0x3f800000"),
        (&[0xdc01_0011, 0x2000_0780], "ADA A4, A3, 0x80"),
        (&[0xd00e_0005, 0xa0c0_0781], "GST.U32.END global14 [R0], R1"),
        (&[0xf000_0001, 0xe000_0002], "NOP.S"),
        (&[0xa00a_1003, 0x0000_0780], "SSY C0.TR, 0x508"),
    ] {
        assert_eq!(print(words).as_deref(), Ok(text), "{words:x?}");
        assert_eq!(assemble(text).as_deref(), Ok(words), "{text}");
    }
    // Spacing and a trailing `;` do not matter.
    assert_eq!(
        assemble("MVC R5 (C0.NEU), c[0x1] [0x2];"),
        Ok(vec![0x1000_0415, 0x2440_c680])
    );
    assert!(matches!(
        assemble("FROB R1, R2"),
        Err(SyntaxError::NoText(_))
    ));
    assert!(matches!(print(&[0x7000_0000]), Err(SyntaxError::NoForm(_))));
}
