//! The prompts' template environments, one per locale (a leaf: the engine builds them at start).

use runtime_model::catalog::Product;
use runtime_model::locale::Locale;

/// The template environment of `product`'s prompts in `locale`: each prompt's template in that
/// locale, and three filters writing values the locale's way for the prose (tool arguments keep
/// the ISO values): `date` (`2026-12-01` → `01/12/2026`), `month` (`2026-12` → `12/2026`) and
/// `money` (`1234.5` → `R$ 1.234,50`). Every locale computes the same values from the same
/// arguments; only their writing differs.
pub(crate) fn environment(
    product: &'static Product,
    locale: Locale,
) -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Lenient);
    env.add_filter("date", move |v: String| locale.date(&v));
    env.add_filter("month", move |v: String| locale.month(&v));
    env.add_filter("money", move |v: minijinja::Value| {
        let n = f64::try_from(v.clone())
            .ok()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()));
        match n {
            Some(n) => locale.money(n),
            None => v.to_string(),
        }
    });
    let texts = product.texts(locale);
    for (i, p) in product.prompts.iter().enumerate() {
        let template = texts.map_or(p.template, |t| t.prompts[i].template);
        // A template that does not parse is reported when the prompt is used.
        let _ = env.add_template(p.name, template);
    }
    env
}
