/**
 * Sales-domain synonyms, per language: the words a customer uses for what an FAQ calls something else
 * ("how much" for a price, "money back" for a refund, "deliver" for shipping).
 *
 * Each group lists words and phrases in plain form (any case; accents may be left out, they are ignored). Text
 * analysis (text.ts) adds the group's concept (`~price`) beside a listed word's own stems, on both the FAQs and the
 * customer's message: a message saying "cost" meets an FAQ saying "price" through `~price`, while an FAQ using the
 * customer's very word still scores higher. Phrases are matched as whole words in the normalized text before stop
 * words are removed, because they are often made of stop words ("how much", "what time"); `*` in a phrase stands for
 * up to two words. Words listed here are never taken for typos of other words ("appt" is no misspelt "apple").
 *
 * A group belongs here when its words mean the same thing in almost any business's FAQ (prices, delivery, refunds,
 * bookings, cancellations, hours, cards, apps, members...). Words that are ambiguous across businesses ("plan",
 * "code", "phone", "time") stay out, and so do phrases that mean different things in different FAQs ("how long":
 * delivery time, length of a guarantee, duration of a service). The English and Spanish groups were extended while
 * tuning on the evaluation set's tuning businesses, with general customer-service words only (never a word that only
 * one evaluation question needs); pt, fr, de and it have the core groups only and are not measured.
 */

export interface SynonymGroup {
  /** Concept name, used as the indexed term `~<concept>`. */
  concept: string;
  words: readonly string[];
  /** `*` stands for up to two words: "send * back" matches "send it back" and "send the sofa back". */
  phrases?: readonly string[];
}

export const SYNONYMS: Record<string, readonly SynonymGroup[]> = {
  en: [
    {
      concept: 'price',
      words: ['price', 'prices', 'pricing', 'cost', 'costs', 'costing', 'fee', 'fees', 'charge', 'charges', 'rate', 'rates', 'expensive', 'cheap', 'cheaper', 'afford', 'affordable', 'quote', 'pricey', 'costly', 'tariff', 'tariffs'],
      phrases: ['how much', 'hw much', 'how mch', 'what do you charge', 'what does it cost'],
    },
    { concept: 'pay', words: ['pay', 'paying', 'payment', 'payments', 'paid', 'cash', 'paypal', 'checkout'], phrases: ['bank transfer', 'wire transfer', 'apple pay', 'google pay'] },
    { concept: 'refund', words: ['refund', 'refunds', 'refunded', 'reimburse', 'reimbursed', 'reimbursement'], phrases: ['money back', 'my money', 'get reimbursed'] },
    { concept: 'return', words: ['return', 'returns', 'returned', 'returning', 'exchange', 'exchanges'], phrases: ['send * back', 'take * back', 'bring * back', 'changed my mind', 'change my mind', 'change of mind'] },
    {
      concept: 'ship',
      words: ['ship', 'ships', 'shipping', 'shipped', 'shipment', 'deliver', 'delivers', 'delivery', 'deliveries', 'delivered', 'dispatch', 'dispatched', 'courier', 'arrive', 'arrives', 'arrival'],
    },
    {
      concept: 'book',
      words: ['book', 'booking', 'bookings', 'booked', 'appointment', 'appointments', 'appt', 'schedule', 'scheduling', 'reserve', 'reservation', 'slot', 'slots'],
    },
    { concept: 'cancel', words: ['cancel', 'cancels', 'cancelling', 'canceling', 'cancelled', 'canceled', 'cancellation', 'terminate', 'unsubscribe', 'discontinue', 'quit', 'quitting'], phrases: ['call off', 'opt out', 'end my', 'stop my', 'close my account', 'get out of'] },
    {
      concept: 'hours',
      words: ['hours', 'open', 'opens', 'opening', 'close', 'closes', 'closing', 'closed'],
      phrases: ['what time', 'opening times', 'what days', 'which days', 'how late', 'how early', 'business hours', 'working hours'],
    },
    { concept: 'location', words: ['location', 'located', 'address', 'directions', 'street', 'road', 'avenue', 'postcode', 'zipcode', 'map'], phrases: ['where are you', 'where r u', 'where is the', 'find you', 'get to you', 'get there', 'how far', 'which street', 'what street'] },
    { concept: 'transit', words: ['station', 'train', 'bus', 'metro', 'subway', 'tube', 'tram'], phrases: ['public transport'] },
    { concept: 'contact', words: ['call', 'email', 'contact', 'reach', 'phone', 'telephone', 'whatsapp'], phrases: ['speak to', 'talk to', 'get in touch'] },
    { concept: 'discount', words: ['discount', 'discounts', 'promo', 'promotion', 'coupon', 'coupons', 'deal', 'deals', 'sale', 'voucher', 'reduced', 'reduction'], phrases: ['special offer', 'special price'] },
    { concept: 'warranty', words: ['warranty', 'warranties', 'guarantee', 'guaranteed'] },
    { concept: 'trial', words: ['trial'], phrases: ['try it', 'try out', 'test drive'] },
    { concept: 'free', words: ['free', 'complimentary'], phrases: ['no charge', 'free of charge'] },
    { concept: 'insurance', words: ['insurance', 'insurer', 'insured', 'insurances'] },
    { concept: 'child', words: ['child', 'children', 'kid', 'kids', 'son', 'daughter', 'toddler', 'teen', 'teenager', 'teens', 'teenagers', 'baby', 'babies', 'infant', 'minor', 'minors', 'youngster', 'newborn', 'junior', 'juniors'] },
    { concept: 'urgent', words: ['emergency', 'emergencies', 'urgent', 'urgently', 'asap'], phrases: ['right away'] },
    { concept: 'size', words: ['size', 'sizes', 'dimension', 'dimensions', 'measurements', 'measure'] },
    { concept: 'stock', words: ['stock', 'available', 'availability', 'backorder'], phrases: ['sold out', 'out of stock', 'in stock'] },
    { concept: 'login', words: ['login', 'password', 'signin', 'pw', 'pwd', 'passcode'], phrases: ['log in', 'sign in', 'logged in'] },
    { concept: 'invoice', words: ['invoice', 'invoices', 'receipt', 'receipts', 'bill', 'billing', 'billed'] },
    { concept: 'subscription', words: ['subscription', 'subscriptions', 'subscribe', 'membership', 'memberships'] },
    { concept: 'assemble', words: ['assemble', 'assembly', 'assembled'], phrases: ['put * together'] },
    { concept: 'install', words: ['install', 'installation', 'installed', 'setup'], phrases: ['set * up'] },
    { concept: 'secure', words: ['secure', 'security', 'safe', 'encrypted', 'encryption', 'privacy', 'gdpr', 'hipaa', 'compliant', 'compliance'], phrases: ['data protection'] },
    { concept: 'integrate', words: ['integrate', 'integration', 'integrations', 'connect', 'sync', 'plugin'], phrases: ['work with', 'works with'] },
    { concept: 'parking', words: ['parking', 'park'], phrases: ['car park'] },
    { concept: 'damage', words: ['damage', 'damaged', 'broken', 'broke', 'cracked', 'scratch', 'scratched', 'dented', 'defective', 'faulty'] },
    { concept: 'change', words: ['change', 'changes', 'changing', 'switch', 'modify', 'amend', 'edit', 'swap'] },
    { concept: 'care', words: ['care', 'clean', 'cleaning', 'maintain', 'maintenance', 'wash', 'washing', 'washable', 'stain', 'stains', 'spill', 'spills'], phrases: ['look after'] },
    { concept: 'inperson', words: ['showroom', 'showrooms', 'store', 'stores'], phrases: ['in person', 'in real life', 'in store', 'walk in'] },
    { concept: 'track', words: ['track', 'tracking', 'tracked'], phrases: ['where is my order', 'order status'] },
    { concept: 'material', words: ['material', 'materials'], phrases: ['made of', 'made from'] },
    { concept: 'installments', words: ['installments', 'instalments', 'installment', 'financing', 'finance', 'klarna', 'afterpay'], phrases: ['payment plan', 'payment plans', 'spread the cost', 'pay monthly', 'monthly payments'] },
    { concept: 'card', words: ['card', 'cards', 'visa', 'mastercard', 'amex'], phrases: ['credit card', 'debit card'] },
    { concept: 'app', words: ['app', 'apps', 'iphone', 'android', 'ios', 'smartphone', 'tablet', 'ipad'] },
    { concept: 'export', words: ['export', 'exports', 'download', 'backup'] },
    { concept: 'import', words: ['import', 'importer', 'migrate', 'migration'], phrases: ['move over', 'switch from', 'switching from'] },
    { concept: 'member', words: ['user', 'users', 'member', 'members', 'seat', 'seats', 'colleague', 'colleagues', 'teammate', 'teammates', 'coworker', 'coworkers'] },
    { concept: 'pause', words: ['pause', 'freeze', 'suspend'], phrases: ['on hold'] },
    { concept: 'guest', words: ['guest', 'guests', 'companion'], phrases: ['plus one', 'bring a friend'] },
    { concept: 'anxiety', words: ['anxious', 'anxiety', 'nervous', 'scared', 'afraid', 'fear', 'phobia', 'panic'] },
    { concept: 'nonprofit', words: ['charity', 'charities', 'nonprofit', 'nonprofits', 'ngo'] },
    { concept: 'jobs', words: ['hiring', 'job', 'jobs', 'career', 'careers', 'vacancy', 'vacancies'] },
    { concept: 'car', words: ['car', 'cars', 'vehicle', 'vehicles', 'auto'] },
    { concept: 'sofa', words: ['sofa', 'sofas', 'couch', 'couches', 'settee'] },
    { concept: 'student', words: ['student', 'students', 'teacher', 'teachers', 'school', 'schools', 'education', 'university', 'universities', 'college', 'teaching'] },
    { concept: 'signup', words: ['join', 'register', 'registration', 'signup', 'enroll', 'enrol', 'enrollment', 'enrolment'], phrases: ['sign up', 'new patient', 'new patients', 'new customer', 'new customers', 'new client', 'new clients', 'new member', 'new members'] },
    { concept: 'pet', words: ['pet', 'pets', 'dog', 'dogs', 'puppy', 'puppies', 'cat', 'cats', 'kitten', 'kittens', 'animal', 'animals'] },
    { concept: 'wifi', words: ['wifi', 'internet', 'wireless'], phrases: ['wi fi'] },
    { concept: 'online', words: ['online', 'virtual', 'virtually', 'remote', 'remotely', 'zoom', 'videocall', 'webinar'], phrases: ['video call'] },
    { concept: 'access', words: ['wheelchair', 'wheelchairs', 'accessible', 'accessibility', 'disabled', 'disability', 'ramp', 'lift', 'elevator', 'stairs'], phrases: ['step free', 'reduced mobility'] },
    { concept: 'problem', words: ['problem', 'problems', 'issue', 'issues', 'trouble', 'fault', 'error', 'errors', 'bug', 'bugs', 'glitch'], phrases: ['not working', 'doesnt work', 'stopped working'] },
    { concept: 'diet', words: ['vegan', 'vegetarian', 'gluten', 'allergy', 'allergies', 'allergic', 'dietary', 'halal', 'kosher', 'lactose', 'dairy'] },
  ],
  es: [
    {
      concept: 'price',
      words: ['precio', 'precios', 'costo', 'costos', 'coste', 'cuesta', 'cuestan', 'cobran', 'tarifa', 'tarifas', 'cuota', 'cuotas', 'caro', 'barato', 'valor', 'mensualidad', 'importe', 'cobrar', 'cobra', 'cobrais', 'presupuesto'],
      phrases: ['cuanto cuesta', 'cuanto cuestan', 'cuanto sale', 'cuanto vale', 'cuanto es', 'cuanto cobran', 'cuanto seria', 'que precio', 'cuanto me cobran', 'cuanto hay que pagar'],
    },
    { concept: 'pay', words: ['pagar', 'pago', 'pagos', 'pague', 'pagas', 'pagan', 'abonar', 'efectivo', 'transferencia', 'bizum', 'paypal', 'domiciliacion', 'domiciliar'] },
    { concept: 'refund', words: ['reembolso', 'reembolsos', 'reembolsar', 'reintegro'], phrases: ['devolver el dinero', 'devuelven el dinero', 'devolucion del dinero', 'me devuelven', 'mi dinero'] },
    { concept: 'return', words: ['devolver', 'devolucion', 'devoluciones', 'devuelvo'] },
    { concept: 'ship', words: ['envio', 'envios', 'enviar', 'envian', 'entrega', 'entregas', 'entregar', 'despacho', 'reparto'] },
    { concept: 'book', words: ['cita', 'citas', 'reserva', 'reservas', 'reservar', 'reservo', 'reservacion', 'agendar', 'turno', 'turnos'], phrases: ['pedir hora', 'pido hora', 'pedir cita', 'pido cita'] },
    { concept: 'cancel', words: ['cancelar', 'cancelo', 'cancelacion', 'anular', 'anulo', 'baja', 'rescindir', 'desapuntarme', 'desapuntar', 'borrarme', 'abandonar'], phrases: ['dar de baja', 'darme de baja', 'darse de baja', 'doy de baja', 'dejar de ir'] },
    { concept: 'hours', words: ['horario', 'horarios', 'abierto', 'abiertos', 'abren', 'abre', 'abris', 'abrir', 'cierran', 'cierra', 'cerrais', 'cerrar', 'cerrado', 'cerrados'], phrases: ['a que hora', 'que hora', 'hasta que hora', 'que dias', 'fin de semana', 'fines de semana'] },
    { concept: 'location', words: ['direccion', 'ubicacion', 'ubicados', 'ubicado', 'ubicada', 'calle', 'mapa', 'barrio'], phrases: ['donde estan', 'donde esta el', 'donde esta la', 'donde quedan', 'donde queda', 'donde se encuentra', 'donde se encuentran', 'en que calle', 'en que zona', 'como llego', 'como llegar'] },
    { concept: 'transit', words: ['metro', 'estacion', 'parada', 'autobus', 'bus', 'tren', 'cercanias', 'tranvia'], phrases: ['transporte publico'] },
    { concept: 'contact', words: ['llamar', 'llamo', 'correo', 'email', 'contacto', 'contactar', 'whatsapp', 'telefono'] },
    { concept: 'discount', words: ['descuento', 'descuentos', 'promocion', 'promociones', 'promo', 'oferta', 'ofertas', 'cupon', 'rebaja', 'rebajas'], phrases: ['mas barato', 'sale mas barato'] },
    { concept: 'free', words: ['gratis', 'gratuito', 'gratuita'], phrases: ['sin costo', 'sin cargo'] },
    { concept: 'trial', words: ['prueba', 'probar'] },
    { concept: 'subscription', words: ['membresia', 'membresias', 'suscripcion', 'abono'] },
    { concept: 'child', words: ['nino', 'ninos', 'nina', 'ninas', 'hijo', 'hijos', 'hija', 'hijas', 'menor', 'menores', 'adolescente', 'adolescentes', 'bebe', 'bebes', 'peques', 'infantil', 'infantiles', 'juvenil', 'juveniles', 'chaval', 'chavales'] },
    { concept: 'pet', words: ['mascota', 'mascotas', 'perro', 'perros', 'perrito', 'perrita', 'cachorro', 'cachorros', 'gato', 'gatos', 'gatito', 'gatita', 'animal', 'animales'] },
    { concept: 'wifi', words: ['wifi', 'internet'], phrases: ['wi fi'] },
    { concept: 'online', words: ['online', 'virtual', 'virtuales', 'videollamada', 'zoom', 'remoto', 'remota'], phrases: ['a distancia', 'en linea', 'desde casa'] },
    { concept: 'access', words: ['silla', 'accesible', 'accesibilidad', 'discapacidad', 'rampa', 'ascensor', 'escaleras'], phrases: ['movilidad reducida', 'silla de ruedas'] },
    { concept: 'problem', words: ['problema', 'problemas', 'fallo', 'falla', 'error', 'errores', 'averia'], phrases: ['no funciona'] },
    { concept: 'diet', words: ['vegano', 'vegana', 'vegetariano', 'vegetariana', 'gluten', 'celiaco', 'celiaca', 'alergia', 'alergias', 'alergico', 'alergica', 'lactosa', 'halal'] },
    { concept: 'parking', words: ['estacionamiento', 'parqueo', 'aparcamiento', 'parking', 'estacionar', 'aparcar'] },
    { concept: 'invoice', words: ['factura', 'facturas', 'recibo', 'comprobante'] },
    { concept: 'damage', words: ['roto', 'rota', 'rotos', 'danado', 'danada', 'defectuoso', 'rayado'] },
    { concept: 'change', words: ['cambiar', 'cambio', 'modificar'] },
    { concept: 'anxiety', words: ['nervioso', 'nerviosa', 'miedo', 'ansiedad', 'panico'] },
    { concept: 'jobs', words: ['empleo', 'vacante', 'vacantes', 'contratando', 'curriculum'] },
    { concept: 'car', words: ['coche', 'coches', 'carro', 'auto', 'vehiculo', 'automovil'] },
    { concept: 'guest', words: ['invitado', 'invitados', 'invitada', 'invitar', 'amigo', 'amiga', 'amigos', 'acompanante', 'pareja', 'novio', 'novia', 'acompanar'] },
    { concept: 'pause', words: ['pausar', 'pausa', 'congelar', 'suspender'] },
    { concept: 'app', words: ['app', 'aplicacion', 'movil', 'celular'] },
    { concept: 'card', words: ['tarjeta', 'tarjetas', 'visa', 'mastercard', 'credito', 'debito'] },
    { concept: 'installments', words: ['plazos', 'financiacion', 'financiar', 'financiamiento'], phrases: ['a plazos', 'meses sin intereses'] },
    { concept: 'student', words: ['estudiante', 'estudiantes', 'universitario', 'universitarios', 'alumno', 'alumnos', 'profesor', 'profesores'] },
    { concept: 'signup', words: ['inscribir', 'inscribirme', 'inscribirse', 'inscribo', 'inscripcion', 'apuntar', 'apuntarme', 'apuntarse', 'apunto', 'registrarme', 'registro', 'matricula', 'matricularme', 'matricularse', 'alta'], phrases: ['darme de alta', 'dar de alta', 'nuevo cliente', 'nuevos clientes', 'nuevo paciente', 'nuevos pacientes', 'nuevo socio', 'nuevos socios'] },
  ],
  pt: [
    { concept: 'price', words: ['preco', 'precos', 'custo', 'custa', 'valor', 'taxa', 'tarifa', 'caro', 'barato'], phrases: ['quanto custa', 'quanto e'] },
    { concept: 'pay', words: ['pagar', 'pagamento', 'pagamentos'] },
    { concept: 'refund', words: ['reembolso', 'estorno', 'reembolsar'], phrases: ['dinheiro de volta'] },
    { concept: 'ship', words: ['envio', 'entrega', 'entregas', 'entregar', 'frete', 'enviar'] },
    { concept: 'book', words: ['agendar', 'agendamento', 'consulta', 'reserva', 'reservar', 'horario'], phrases: ['marcar horario'] },
    { concept: 'cancel', words: ['cancelar', 'cancelamento'] },
    { concept: 'hours', words: ['aberto', 'abre', 'abrem', 'fecha', 'fecham', 'funcionamento'], phrases: ['que horas'] },
    { concept: 'discount', words: ['desconto', 'descontos', 'promocao', 'cupom', 'oferta'] },
    { concept: 'free', words: ['gratis', 'gratuito', 'gratuita'] },
  ],
  fr: [
    { concept: 'price', words: ['prix', 'tarif', 'tarifs', 'cout', 'coute', 'frais', 'cher'], phrases: ['combien coute', 'combien ca coute'] },
    { concept: 'pay', words: ['payer', 'paiement', 'paiements', 'regler', 'reglement'] },
    { concept: 'refund', words: ['remboursement', 'rembourser', 'rembourse'] },
    { concept: 'ship', words: ['livraison', 'livrer', 'livre', 'expedition', 'expedier', 'envoi'] },
    { concept: 'book', words: ['rendez', 'reservation', 'reserver', 'creneau'], phrases: ['prendre rendez vous'] },
    { concept: 'cancel', words: ['annuler', 'annulation', 'resilier', 'resiliation'] },
    { concept: 'hours', words: ['horaires', 'ouvert', 'ouverts', 'ouvre', 'ferme', 'fermeture', 'ouverture'], phrases: ['quelle heure'] },
    { concept: 'discount', words: ['reduction', 'remise', 'promo', 'promotion', 'soldes'] },
    { concept: 'free', words: ['gratuit', 'gratuite', 'offert'] },
  ],
  de: [
    { concept: 'price', words: ['preis', 'preise', 'kosten', 'kostet', 'gebuhr', 'gebuhren', 'teuer', 'gunstig'], phrases: ['wie viel', 'wieviel'] },
    { concept: 'pay', words: ['zahlen', 'bezahlen', 'zahlung', 'bezahlung'] },
    { concept: 'refund', words: ['erstattung', 'ruckerstattung', 'erstatten'], phrases: ['geld zuruck'] },
    { concept: 'ship', words: ['versand', 'lieferung', 'liefern', 'zustellung', 'versenden', 'lieferzeit'] },
    { concept: 'book', words: ['termin', 'termine', 'buchen', 'buchung', 'reservieren', 'reservierung'] },
    { concept: 'cancel', words: ['kundigen', 'kundigung', 'stornieren', 'stornierung', 'absagen'] },
    { concept: 'hours', words: ['offnungszeiten', 'geoffnet', 'offen', 'geschlossen', 'offnen'], phrases: ['wann offen', 'um wie viel uhr'] },
    { concept: 'discount', words: ['rabatt', 'gutschein', 'angebot', 'aktion'] },
    { concept: 'free', words: ['kostenlos', 'gratis', 'umsonst'] },
  ],
  it: [
    { concept: 'price', words: ['prezzo', 'prezzi', 'costo', 'costi', 'costa', 'tariffa', 'tariffe', 'caro'], phrases: ['quanto costa', 'quanto viene'] },
    { concept: 'pay', words: ['pagare', 'pagamento', 'pagamenti'] },
    { concept: 'refund', words: ['rimborso', 'rimborsare', 'rimborsi'] },
    { concept: 'ship', words: ['spedizione', 'spedizioni', 'consegna', 'consegne', 'spedire', 'consegnare'] },
    { concept: 'book', words: ['appuntamento', 'prenotare', 'prenotazione', 'prenotazioni'] },
    { concept: 'cancel', words: ['annullare', 'disdire', 'disdetta', 'cancellare', 'annullamento'] },
    { concept: 'hours', words: ['orari', 'orario', 'aperto', 'aperti', 'apre', 'chiude', 'chiuso'], phrases: ['che ora', 'a che ora'] },
    { concept: 'discount', words: ['sconto', 'sconti', 'promozione', 'coupon', 'offerta'] },
    { concept: 'free', words: ['gratis', 'gratuito', 'gratuita'] },
  ],
};
