//! Brazilian-looking data for the seed: names, companies, CPF/CNPJ with valid check digits,
//! phones and Pix keys.

use crate::rng::Rng;

const FIRST_NAMES: &[&str] = &[
    "Ana",
    "Beatriz",
    "Bruno",
    "Camila",
    "Carlos",
    "Daniela",
    "Eduardo",
    "Fernanda",
    "Gabriel",
    "Helena",
    "Igor",
    "Juliana",
    "Lucas",
    "Larissa",
    "Marcos",
    "Mariana",
    "Natália",
    "Otávio",
    "Paula",
    "Rafael",
    "Renata",
    "Sérgio",
    "Tatiane",
    "Thiago",
    "Vanessa",
    "Vinícius",
    "João",
    "Maria",
    "Pedro",
    "Luíza",
];

const LAST_NAMES: &[&str] = &[
    "Silva",
    "Santos",
    "Oliveira",
    "Souza",
    "Rodrigues",
    "Ferreira",
    "Alves",
    "Pereira",
    "Lima",
    "Gomes",
    "Costa",
    "Ribeiro",
    "Martins",
    "Carvalho",
    "Almeida",
    "Lopes",
    "Soares",
    "Fernandes",
    "Vieira",
    "Barbosa",
    "Rocha",
    "Dias",
    "Nascimento",
    "Andrade",
    "Moreira",
    "Cavalcanti",
];

const COMPANY_CORES: &[&str] = &[
    "Padaria Pão Dourado",
    "Mercado Boa Vista",
    "Construtora Horizonte",
    "Tecnologia Ipê",
    "Transportes Rio Claro",
    "Farmácia Vida Plena",
    "Auto Peças Paulista",
    "Clínica Sorriso",
    "Distribuidora Serra Azul",
    "Escola Aprender",
    "Açaí da Praça",
    "Metalúrgica Progresso",
    "Agropecuária Cerrado",
    "Confecções Aurora",
    "Restaurante Sabor Mineiro",
    "Imobiliária Lar Doce",
    "Papelaria Central",
    "Academia Movimento",
    "Hotel Maré Alta",
    "Laboratório Vital",
];

const COMPANY_SUFFIXES: &[&str] = &["Ltda", "S.A.", "ME", "EIRELI", "Ltda"];

const DDDS: &[u32] = &[11, 21, 31, 41, 48, 51, 61, 71, 81, 85, 62, 92];

const WORDS: &[&str] = &[
    "mensalidade",
    "serviço",
    "consultoria",
    "parcela",
    "aluguel",
    "manutenção",
    "assinatura",
    "produto",
    "entrega",
    "licença",
    "suporte",
    "pedido",
    "contrato",
    "fatura",
    "reembolso",
    "material",
    "escritório",
    "projeto",
    "treinamento",
    "frete",
];

pub fn person_name(rng: &mut Rng) -> String {
    format!(
        "{} {} {}",
        rng.pick(FIRST_NAMES),
        rng.pick(LAST_NAMES),
        rng.pick(LAST_NAMES)
    )
}

pub fn company_name(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(COMPANY_CORES), rng.pick(COMPANY_SUFFIXES))
}

pub fn words(rng: &mut Rng, count: usize) -> String {
    let mut out: Vec<&str> = Vec::with_capacity(count);
    for _ in 0..count.max(1) {
        out.push(*rng.pick(WORDS));
    }
    let mut s = out.join(" ");
    if let Some(first) = s.get(0..1) {
        let upper = first.to_uppercase();
        s.replace_range(0..1, &upper);
    }
    s
}

/// Lowercase ASCII slug of a name, for e-mail addresses.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = match c {
            'á' | 'à' | 'â' | 'ã' | 'Á' => 'a',
            'é' | 'ê' | 'É' => 'e',
            'í' | 'Í' => 'i',
            'ó' | 'ô' | 'õ' | 'Ó' => 'o',
            'ú' | 'Ú' => 'u',
            'ç' => 'c',
            other => other,
        };
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if c == ' ' && !out.ends_with('.') {
            out.push('.');
        }
    }
    out.trim_matches('.').to_string()
}

pub fn email(rng: &mut Rng) -> String {
    let name = person_name(rng);
    let mut parts = slug(&name)
        .split('.')
        .map(str::to_string)
        .collect::<Vec<_>>();
    parts.truncate(2);
    let domain = rng.pick(&[
        "gmail.com",
        "outlook.com",
        "empresa.com.br",
        "uol.com.br",
        "kobana.dev",
    ]);
    format!("{}@{}", parts.join("."), domain)
}

pub fn phone(rng: &mut Rng) -> String {
    format!(
        "+55 {} 9{:04}-{:04}",
        rng.pick(DDDS),
        rng.below(10_000),
        rng.below(10_000)
    )
}

fn check_digit(digits: &[u32], weights: &[u32]) -> u32 {
    let sum: u32 = digits.iter().zip(weights).map(|(d, w)| d * w).sum();
    let rest = sum % 11;
    if rest < 2 {
        0
    } else {
        11 - rest
    }
}

/// The 11 digits of a CPF with valid check digits.
pub fn cpf_digits(rng: &mut Rng) -> Vec<u32> {
    let mut d: Vec<u32> = (0..9).map(|_| rng.below(10) as u32).collect();
    if d.iter().all(|x| *x == d[0]) {
        d[8] = (d[0] + 1) % 10;
    }
    let d1 = check_digit(&d, &[10, 9, 8, 7, 6, 5, 4, 3, 2]);
    d.push(d1);
    let d2 = check_digit(&d, &[11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    d.push(d2);
    d
}

/// The 14 digits of a CNPJ (branch 0001) with valid check digits.
pub fn cnpj_digits(rng: &mut Rng) -> Vec<u32> {
    let mut d: Vec<u32> = (0..8).map(|_| rng.below(10) as u32).collect();
    d.extend([0, 0, 0, 1]);
    let d1 = check_digit(&d, &[5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
    d.push(d1);
    let d2 = check_digit(&d, &[6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
    d.push(d2);
    d
}

fn join(d: &[u32]) -> String {
    d.iter()
        .map(|x| char::from_digit(*x, 10).unwrap_or('0'))
        .collect()
}

/// `123.456.789-09`
pub fn cpf(rng: &mut Rng) -> String {
    format_document(&join(&cpf_digits(rng)))
}

/// A CPF or CNPJ written with its punctuation (`123.456.789-09`, `12.345.678/0001-95`) from its
/// 11 or 14 digits, punctuated or not: the one form the sandbox stores; anything else comes back
/// as it is.
pub fn format_document(v: &str) -> String {
    let d: String = v.chars().filter(char::is_ascii_digit).collect();
    if d.len() == 11 {
        format!("{}.{}.{}-{}", &d[0..3], &d[3..6], &d[6..9], &d[9..11])
    } else {
        format_cnpj(v)
    }
}

/// `12.345.678/0001-95`
pub fn cnpj(rng: &mut Rng) -> String {
    format_cnpj(&join(&cnpj_digits(rng)))
}

/// A CNPJ written with its punctuation, `12.345.678/0001-95`, from its 14 digits (punctuated or
/// not); anything else comes back as it is.
pub fn format_cnpj(v: &str) -> String {
    let d: String = v.chars().filter(char::is_ascii_digit).collect();
    if d.len() != 14 {
        return v.to_string();
    }
    format!(
        "{}.{}.{}/{}-{}",
        &d[0..2],
        &d[2..5],
        &d[5..8],
        &d[8..12],
        &d[12..14]
    )
}

/// Whether a formatted or bare CPF has valid check digits.
pub fn is_valid_cpf(s: &str) -> bool {
    let d: Vec<u32> = s.chars().filter_map(|c| c.to_digit(10)).collect();
    d.len() == 11
        && check_digit(&d[..9], &[10, 9, 8, 7, 6, 5, 4, 3, 2]) == d[9]
        && check_digit(&d[..10], &[11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) == d[10]
}

/// Whether a formatted or bare CNPJ has valid check digits.
pub fn is_valid_cnpj(s: &str) -> bool {
    let d: Vec<u32> = s.chars().filter_map(|c| c.to_digit(10)).collect();
    d.len() == 14
        && check_digit(&d[..12], &[5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) == d[12]
        && check_digit(&d[..13], &[6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) == d[13]
}

/// A Pix key of one of the four kinds: CPF, CNPJ, e-mail, phone, or a random (EVP) key.
pub fn pix_key(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => join(&cpf_digits(rng)),
        1 => join(&cnpj_digits(rng)),
        2 => email(rng),
        3 => format!("+55{}9{:08}", rng.pick(DDDS), rng.below(100_000_000)),
        _ => uuid_v4_like(rng),
    }
}

/// A random UUID (version 4 layout).
pub fn uuid_v4_like(rng: &mut Rng) -> String {
    let a = rng.next_u64();
    let b = rng.next_u64();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        ((b >> 48) & 0x3fff) | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

/// A UUIDv7-shaped id: 48 bits of milliseconds since the epoch, then random bits, so that ids
/// sort like their creation time, as Kobana's do.
pub fn uuid_v7_like(rng: &mut Rng, unix_ms: i64) -> String {
    let ms = (unix_ms.max(0) as u64) & 0xffff_ffff_ffff;
    let r = rng.next_u64();
    let s = rng.next_u64();
    format!(
        "{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}",
        ms >> 16,
        ms & 0xffff,
        r & 0x0fff,
        ((r >> 16) & 0x3fff) | 0x8000,
        s & 0xffff_ffff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_documents_have_valid_check_digits() {
        let mut rng = Rng::new(1);
        for _ in 0..500 {
            let c = cpf(&mut rng);
            assert!(is_valid_cpf(&c), "{c}");
            let j = cnpj(&mut rng);
            assert!(is_valid_cnpj(&j), "{j}");
        }
    }

    #[test]
    fn known_documents_validate_and_typos_do_not() {
        assert!(is_valid_cpf("529.982.247-25"));
        assert!(!is_valid_cpf("529.982.247-24"));
        assert!(is_valid_cnpj("11.222.333/0001-81"));
        assert!(!is_valid_cnpj("11.222.333/0001-82"));
    }

    #[test]
    fn uuid_v7_sorts_by_time() {
        let mut rng = Rng::new(3);
        let a = uuid_v7_like(&mut rng, 1_700_000_000_000);
        let b = uuid_v7_like(&mut rng, 1_700_000_000_001);
        assert!(a < b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "7");
    }
}
